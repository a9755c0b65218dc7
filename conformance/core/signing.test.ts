import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';
import { generateSigningKey, signDocument, signingKeyFromPem, signingKeyToPem, verifyDocument } from './signing.js';

const report = () => ({
  format: 'settlement-conformance-report/1',
  target: { url: 'http://127.0.0.1:1', profile: 'A' },
  summary: { total: 2, passed: 1, failed: 1, verdict: 'FAILED' },
  results: [
    { id: 'a', status: 'PASSED', evidence: [{ kind: 'note', text: 'ünïcödé ✓' }] },
    { id: 'b', status: 'FAILED', message: 'x' },
  ],
});

describe('canonical JSON', () => {
  it('does not depend on key order or whitespace and drops undefined', () => {
    expect(canonicalJson({ b: 1, a: [true, null, { d: 'x', c: undefined }] })).toBe('{"a":[true,null,{"d":"x"}],"b":1}');
    expect(canonicalJson({ a: 1, b: 2 })).toBe(canonicalJson({ b: 2, a: 1 }));
    expect(() => canonicalJson({ a: Number.NaN })).toThrow();
  });
});

describe('report signatures', () => {
  const key = generateSigningKey();

  it('verifies a signed report, also after a JSON round trip with other key order', () => {
    const signed = signDocument(report(), key);
    expect(verifyDocument(signed)).toMatchObject({ valid: true });
    const reordered = Object.fromEntries(Object.entries(signed).reverse());
    expect(verifyDocument(JSON.parse(JSON.stringify(reordered, null, 2)))).toMatchObject({ valid: true });
  });

  it('rejects any change after signing: a status, evidence, the summary, the signer block', () => {
    const signed = signDocument(report(), key);
    const tamper = (edit: (doc: any) => void) => {
      const copy = JSON.parse(JSON.stringify(signed));
      edit(copy);
      return verifyDocument(copy);
    };
    expect(tamper((d) => (d.results[1].status = 'PASSED'))).toMatchObject({ valid: false });
    expect(tamper((d) => (d.results[0].evidence[0].text = 'unicode'))).toMatchObject({ valid: false });
    expect(tamper((d) => (d.summary.verdict = 'PASSED'))).toMatchObject({ valid: false });
    expect(tamper((d) => (d.signature.signedAt = '2000-01-01T00:00:00.000Z'))).toMatchObject({ valid: false });
    expect(tamper((d) => (d.extra = 1))).toMatchObject({ valid: false });
    expect(tamper((d) => delete d.signature)).toMatchObject({ valid: false, reason: 'the report carries no signature' });
  });

  it('rejects a report re-signed by another key when a trusted key is pinned, and a swapped embedded key', () => {
    const other = generateSigningKey();
    const forged = signDocument(report(), other);
    const trusted = signingKeyToPem(key).publicPem;
    expect(verifyDocument(forged)).toMatchObject({ valid: true });
    expect(verifyDocument(forged, trusted)).toMatchObject({ valid: false });
    expect(verifyDocument(signDocument(report(), key), trusted)).toMatchObject({ valid: true });
    const swapped = JSON.parse(JSON.stringify(signDocument(report(), key)));
    swapped.signature.publicKey = forged.signature.publicKey;
    expect(verifyDocument(swapped)).toMatchObject({ valid: false });
  });

  it('round-trips the signing key through PEM', () => {
    const again = signingKeyFromPem(signingKeyToPem(key).privatePem);
    expect(verifyDocument(signDocument(report(), again), signingKeyToPem(key).publicPem)).toMatchObject({ valid: true });
  });
});
