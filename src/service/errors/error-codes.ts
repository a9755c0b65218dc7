import { API_ERROR_CODES } from '../../contracts/errors/error-codes.js';

/**
 * The service's error codes with a sentence each, read from the one registry (src/contracts/errors/error-codes.ts).
 * `doc_url` in every error points at the locally served page built from this list (`/docs/errors#<code>`), so
 * every doc_url resolves. A new code goes into the registry; the registry's test fails on a thrown code it lacks.
 */
const codes: ReadonlyMap<string, string> = new Map(Object.entries(API_ERROR_CODES).map(([code, entry]) => [code, entry.description]));

export function errorCodes(): ReadonlyMap<string, string> {
  return codes;
}
