/**
 * A small JSON Schema (2020-12) checker for the keywords zod emits, used by tests to hold live responses
 * against the published OpenAPI document. Unknown keywords throw, so a schema we cannot check is noticed.
 */
type Schema = Record<string, unknown> | boolean;

const IGNORED = new Set(['description', 'default', 'format', 'title', 'examples', '$schema', '$id', 'readOnly', 'id']);

export function validateJson(value: unknown, schema: Schema, resolveRef: (ref: string) => Schema, path = '$'): string[] {
  if (schema === true) return [];
  if (schema === false) return [`${path}: no value allowed`];
  const errors: string[] = [];
  for (const [keyword, rule] of Object.entries(schema)) {
    if (IGNORED.has(keyword)) continue;
    switch (keyword) {
      case '$ref':
        errors.push(...validateJson(value, resolveRef(rule as string), resolveRef, path));
        break;
      case 'type': {
        const types = Array.isArray(rule) ? (rule as string[]) : [rule as string];
        if (!types.some((type) => hasType(value, type))) errors.push(`${path}: expected ${types.join('|')}, got ${typeName(value)}`);
        break;
      }
      case 'properties':
        if (isObject(value)) {
          for (const [name, sub] of Object.entries(rule as Record<string, Schema>)) {
            if (name in value) errors.push(...validateJson(value[name], sub, resolveRef, `${path}.${name}`));
          }
        }
        break;
      case 'required':
        if (isObject(value)) for (const name of rule as string[]) if (!(name in value)) errors.push(`${path}: missing ${name}`);
        break;
      case 'additionalProperties':
        if (isObject(value)) {
          const known = new Set(Object.keys((schema.properties as Record<string, unknown>) ?? {}));
          for (const [name, sub] of Object.entries(value)) {
            if (known.has(name)) continue;
            errors.push(...validateJson(sub, rule as Schema, resolveRef, `${path}.${name}`));
          }
        }
        break;
      case 'propertyNames':
        if (isObject(value))
          for (const name of Object.keys(value)) errors.push(...validateJson(name, rule as Schema, resolveRef, `${path}[key]`));
        break;
      case 'items': {
        // 2020-12: `items` applies to the elements after those `prefixItems` describes (a tuple is `prefixItems`
        // plus `items: false`).
        const skip = Array.isArray((schema as Record<string, unknown>).prefixItems)
          ? ((schema as Record<string, unknown>).prefixItems as unknown[]).length
          : 0;
        if (Array.isArray(value))
          value.forEach((item, i) => {
            if (i >= skip) errors.push(...validateJson(item, rule as Schema, resolveRef, `${path}[${i}]`));
          });
        break;
      }
      case 'prefixItems':
        if (Array.isArray(value))
          (rule as Schema[]).forEach((sub, i) => {
            if (i < value.length) errors.push(...validateJson(value[i], sub, resolveRef, `${path}[${i}]`));
          });
        break;
      case 'minItems':
        if (Array.isArray(value) && value.length < (rule as number)) errors.push(`${path}: fewer than ${rule} items`);
        break;
      case 'maxItems':
        if (Array.isArray(value) && value.length > (rule as number)) errors.push(`${path}: more than ${rule} items`);
        break;
      case 'enum':
        if (!(rule as unknown[]).some((option) => option === value)) errors.push(`${path}: ${JSON.stringify(value)} not in enum`);
        break;
      case 'const':
        if (rule !== value) errors.push(`${path}: expected ${JSON.stringify(rule)}`);
        break;
      case 'pattern':
        if (typeof value === 'string' && !new RegExp(rule as string, 'u').test(value)) errors.push(`${path}: does not match ${rule}`);
        break;
      case 'minLength':
        if (typeof value === 'string' && [...value].length < (rule as number)) errors.push(`${path}: shorter than ${rule}`);
        break;
      case 'maxLength':
        if (typeof value === 'string' && [...value].length > (rule as number)) errors.push(`${path}: longer than ${rule}`);
        break;
      case 'minimum':
        if (typeof value === 'number' && value < (rule as number)) errors.push(`${path}: below ${rule}`);
        break;
      case 'maximum':
        if (typeof value === 'number' && value > (rule as number)) errors.push(`${path}: above ${rule}`);
        break;
      case 'exclusiveMinimum':
        if (typeof value === 'number' && value <= (rule as number)) errors.push(`${path}: not above ${rule}`);
        break;
      case 'exclusiveMaximum':
        if (typeof value === 'number' && value >= (rule as number)) errors.push(`${path}: not below ${rule}`);
        break;
      case 'anyOf':
        if (!(rule as Schema[]).some((sub) => validateJson(value, sub, resolveRef, path).length === 0))
          errors.push(`${path}: matches no anyOf branch`);
        break;
      case 'oneOf':
        if ((rule as Schema[]).filter((sub) => validateJson(value, sub, resolveRef, path).length === 0).length !== 1) {
          errors.push(`${path}: does not match exactly one oneOf branch`);
        }
        break;
      case 'allOf':
        for (const sub of rule as Schema[]) errors.push(...validateJson(value, sub, resolveRef, path));
        break;
      default:
        throw new Error(`json-schema checker: unsupported keyword "${keyword}" at ${path}`);
    }
  }
  return errors;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'object':
      return isObject(value);
    default:
      return typeName(value) === type;
  }
}
