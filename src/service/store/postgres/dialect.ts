/**
 * SQLite's dialect, as the repositories and migrations write it, turned into Postgres's. The repositories keep one
 * SQL text each; this covers the constructs they use, and the repository tests run on both stores so a construct it
 * misses fails a test rather than a deployment.
 */

/** Splits SQL into code and quoted parts so rewrites never touch string literals or quoted identifiers. */
function mapCode(sql: string, rewrite: (code: string) => string): string {
  let out = '';
  let code = '';
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i]!;
    if (ch === "'" || ch === '"') {
      out += rewrite(code);
      code = '';
      let j = i + 1;
      while (j < sql.length) {
        if (sql[j] === ch) {
          if (sql[j + 1] === ch) j += 2;
          else break;
        } else j += 1;
      }
      out += sql.slice(i, j + 1);
      i = j + 1;
    } else if (ch === '$' && sql[i + 1] === '$') {
      // A dollar-quoted body (a plpgsql function) is Postgres already.
      const end = sql.indexOf('$$', i + 2);
      out += rewrite(code) + sql.slice(i, end < 0 ? sql.length : end + 2);
      code = '';
      i = end < 0 ? sql.length : end + 2;
    } else {
      code += ch;
      i += 1;
    }
  }
  return out + rewrite(code);
}

/** `MAX(a, b)` / `MIN(a, b)` are SQLite's scalar forms; Postgres spells them GREATEST / LEAST. */
function scalarMinMax(code: string): string {
  let result = code;
  const pattern = /\b(MAX|MIN)\s*\(/gi;
  let match: RegExpExecArray | null = pattern.exec(result);
  while (match !== null) {
    const open = match.index + match[0].length - 1;
    let depth = 0;
    let topLevelComma = false;
    let close = -1;
    for (let k = open; k < result.length; k += 1) {
      const c = result[k];
      if (c === '(') depth += 1;
      else if (c === ')') {
        depth -= 1;
        if (depth === 0) {
          close = k;
          break;
        }
      } else if (c === ',' && depth === 1) topLevelComma = true;
    }
    if (close > 0 && topLevelComma) {
      const name = match[1]!.toUpperCase() === 'MAX' ? 'GREATEST' : 'LEAST';
      result = result.slice(0, match.index) + name + result.slice(match.index + match[1]!.length);
    }
    pattern.lastIndex = match.index + 1;
    match = pattern.exec(result);
  }
  return result;
}

/** Column names that are reserved words in Postgres but not in SQLite (written in lower case, as columns are). */
function quoteReserved(code: string): string {
  return code.replace(/\buser\b/g, '"user"');
}

export interface TranslatedQuery {
  text: string;
  /** Named parameters (`@name`, bound from one object as better-sqlite3 does), in placeholder order. */
  names: string[] | undefined;
  /** The statement inserts while ignoring conflicts (INSERT OR IGNORE). */
  insertTable: string | undefined;
}

/** A query or write statement with `?` placeholders. */
export function translateQuery(sql: string): TranslatedQuery {
  let index = 0;
  let ignore = false;
  const names: string[] = [];
  let text = mapCode(sql, (code) => {
    let c = code.replace(/\?/g, () => {
      index += 1;
      return `$${index}`;
    });
    c = c.replace(/@([A-Za-z_][A-Za-z0-9_]*)/g, (_whole, name: string) => {
      const known = names.indexOf(name);
      if (known >= 0) return `$${known + 1}`;
      names.push(name);
      return `$${names.length}`;
    });
    c = c.replace(/\bINSERT\s+OR\s+IGNORE\s+INTO\b/gi, () => {
      ignore = true;
      return 'INSERT INTO';
    });
    c = c.replace(/\bIFNULL\s*\(/gi, 'COALESCE(');
    c = quoteReserved(c);
    // Postgres folds unquoted names to lower case; SQLite keeps an alias's case, and row fields are read by it.
    c = c.replace(/\bAS\s+([A-Za-z_][A-Za-z0-9_]*)\b/g, (whole, name: string) =>
      /[a-z]/.test(name) && /[A-Z]/.test(name) ? `AS "${name}"` : whole,
    );
    c = c.replace(/\bAS\s+INTEGER\s*\)/gi, 'AS BIGINT)');
    return scalarMinMax(c);
  });
  // `$n IS NULL` leaves the parameter's type open, which Postgres refuses; every value we bind reads as text there.
  text = text.replace(/(\$\d+)(\s+IS\s+(?:NOT\s+)?NULL)/gi, '$1::text$2');
  if (ignore) {
    const returning = /\bRETURNING\b/i.exec(text);
    text =
      returning === null
        ? `${text.replace(/;\s*$/, '')} ON CONFLICT DO NOTHING`
        : `${text.slice(0, returning.index)}ON CONFLICT DO NOTHING ${text.slice(returning.index)}`;
  }
  const insert = /^\s*INSERT\s+INTO\s+([A-Za-z_][A-Za-z0-9_]*)/i.exec(text);
  if (names.length > 0 && index > 0) throw new TypeError('a statement mixes ? and @name parameters');
  return { text, names: names.length > 0 ? names : undefined, insertTable: insert?.[1]?.toLowerCase() };
}

/**
 * DDL: SQLite's types become Postgres's (64-bit integers, bytea, C-collated text so ids sort as SQLite sorts them),
 * AUTOINCREMENT keys become identity columns, and a table without an integer key gains the `rowid` column SQLite
 * gives every table (a few queries order by it).
 */
export function translateSchema(sql: string): string {
  return mapCode(sql, (code) => {
    let c = code;
    // SQLite fills an INTEGER PRIMARY KEY (its rowid) when the insert leaves it out, with or without AUTOINCREMENT.
    c = c.replace(/\bINTEGER\s+PRIMARY\s+KEY(\s+AUTOINCREMENT)?\b/gi, 'BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY');
    c = c.replace(/\bINTEGER\b/g, 'BIGINT');
    c = c.replace(/\bREAL\b/g, 'DOUBLE PRECISION');
    c = c.replace(/\bBLOB\b/g, 'BYTEA');
    c = quoteReserved(c);
    c = c.replace(/\bTEXT\b(?!\s+COLLATE)/g, 'TEXT COLLATE "C"');
    return c;
  })
    .replace(
      /DEFAULT\s*\(\s*strftime\('%Y-%m-%dT%H:%M:%fZ',\s*'now'\)\s*\)/gi,
      `DEFAULT (to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`,
    )
    .replace(/CREATE\s+TABLE\s+(IF\s+NOT\s+EXISTS\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*\(([\s\S]*?)\n(\s*)\);/g, (whole, ifNot, name, body) =>
      /\bBIGINT\s+(GENERATED BY DEFAULT AS IDENTITY\s+)?PRIMARY\s+KEY\b/i.test(body)
        ? whole
        : `CREATE TABLE ${ifNot ?? ''}${name} (${body},\n  rowid BIGINT GENERATED BY DEFAULT AS IDENTITY\n);`,
    );
}
