import { randomBytes } from 'node:crypto';
import type { Address, Hex } from 'viem';
import type { Clock } from '../../clock/index.js';
import type { EvidenceModule } from '../evidence/module.js';
import { ComplianceError } from '../errors/api-errors.js';
import type { ServiceContext, ServiceModule } from '../module.js';
import { isoTime } from '../api/wire.js';
import type { LedgerEntry } from '../../contracts/ledger/chain.js';
import type { MigrationSet } from '../store/migrations.js';
import type { Store } from '../store/store.js';
import { type Attestation, AttestationIssuer } from './attestations.js';
import { complianceMigrations } from './migrations.js';
import { type ComplianceCheckRecord, ComplianceRecords } from './records.js';
import { ComplianceStatus, ComplianceStatusQuery } from './schemas.js';
import { Screening, type ScreeningResult } from './screening.js';
import { type ComplianceSettings, DEFAULT_ATTESTATION_TTL_MS, DEFAULT_SANCTIONED_JURISDICTIONS } from './settings.js';
import { Counterparties } from './counterparties.js';
import { mountCounterpartyRoutes } from './counterparty-routes.js';

const ATTESTATION_HEADER = 'X-Service-Attestation';

export interface ComplianceModuleOptions {
  evidence: EvidenceModule;
  settings?: ComplianceSettings | undefined;
}

/**
 * Compliance for the `compliant` rail: screening (mocked in the sandbox, enforced in production), attestations
 * served at `GET /api/v1/compliance/status?address=`, and the record of every check (ledger + `compliance.event`).
 */
export class ComplianceModule implements ServiceModule {
  readonly name = 'compliance';
  readonly migrations: MigrationSet = complianceMigrations;
  private parts:
    | {
        issuer: AttestationIssuer;
        screening: Screening;
        records: ComplianceRecords;
        counterparties: Counterparties;
        clock: Clock;
        store: Store;
      }
    | undefined;

  constructor(private readonly options: ComplianceModuleOptions) {}

  setup(context: ServiceContext): void {
    const settings = this.options.settings ?? {};
    const secret = `0x${context.repos.secrets
      .getOrCreate('compliance-attestation-key', () => randomBytes(32), context.clock.now())
      .toString('hex')}` as Hex;
    const screening = new Screening(context.config.environment, settings);
    const counterparties = new Counterparties({
      store: context.store,
      clock: context.clock,
      ledger: this.options.evidence.ledger,
      screening,
      sanctionedJurisdictions: (settings.sanctionedJurisdictions ?? DEFAULT_SANCTIONED_JURISDICTIONS).map((j) => j.toUpperCase()),
    });
    this.parts = {
      issuer: new AttestationIssuer(context.store, secret, settings.attestationTtlMs ?? DEFAULT_ATTESTATION_TTL_MS),
      screening,
      records: new ComplianceRecords(context.store, this.options.evidence.ledger, this.options.evidence.outbox),
      counterparties,
      clock: context.clock,
      store: context.store,
    };
    mountCounterpartyRoutes(context.routes(), context.openapi, counterparties, context.repos);
    const environment = context.config.environment;
    context.openapi.schema('ComplianceStatus', ComplianceStatus);
    // The spec lists this route under Reference B only: its errors are Format B.
    context.routes({ errorFormat: 'B' }).route({
      method: 'get',
      path: '/compliance/status',
      operationId: 'getComplianceStatus',
      summary: 'KYC/KYB state, sanctions screening and Travel Rule readiness of a participant, with a fresh attestation.',
      description:
        'An approved participant gets an attestation hash valid for a limited time (1 h by default, service clock). ' +
        `Send it as \`${ATTESTATION_HEADER}\` when creating an order on the compliant path.`,
      tags: ['Compliance'],
      auth: 'optional',
      query: ComplianceStatusQuery,
      responses: { 200: { description: 'The participant status.', schema: ComplianceStatus } },
      handler: ({ query }) => ({ status: 200, body: this.status(query.address as Address, environment) }),
    });
  }

  private get ready() {
    if (this.parts === undefined) throw new Error('compliance module used before setup');
    return this.parts;
  }

  get mocked(): boolean {
    return this.ready.screening.mocked;
  }

  status(address: Address, environment: 'sandbox' | 'production'): ComplianceStatus {
    const { issuer, clock, store } = this.ready;
    const results = this.screen(address);
    const result = (type: ScreeningResult['checkType']) => results.find((r) => r.checkType === type)!.result;
    const approved = results.every((r) => r.result === 'approved');
    const attestation: Attestation | undefined = approved ? store.transaction(() => issuer.issue(address, clock.now())) : undefined;
    return {
      address,
      environment,
      mocked: this.ready.screening.mocked,
      status: approved ? 'approved' : 'rejected',
      kyc: result('kyc'),
      sanctions: result('sanctions') === 'approved' ? 'clear' : 'hit',
      travelRule: result('travel_rule') === 'approved' ? 'ready' : 'not_ready',
      attestation:
        attestation === undefined
          ? null
          : { hash: attestation.hash, issuedAt: isoTime(attestation.issuedAt), expiresAt: isoTime(attestation.expiresAt) },
    };
  }

  /** The attestation the header carries, or 403 `attestation_expired` naming the header. */
  requireAttestation(header: string | undefined, address: Address): Attestation {
    const { issuer, clock } = this.ready;
    const check = issuer.check(header, address, clock.now());
    if (check.valid) return check.attestation;
    const why: Record<typeof check.reason, string> = {
      missing: `The compliant path needs a fresh \`${ATTESTATION_HEADER}\`; get one from GET /api/v1/compliance/status?address=${address}.`,
      malformed: `\`${ATTESTATION_HEADER}\` must be a 0x-prefixed 32-byte hex hash.`,
      unknown: `\`${ATTESTATION_HEADER}\` is not an attestation this service issued; get a fresh one.`,
      expired: `The attestation has expired; get a fresh one from GET /api/v1/compliance/status?address=${address}.`,
      other_address: `The attestation was issued for another address than the order's user ${address}.`,
    };
    throw new ComplianceError({
      code: 'attestation_expired',
      param: ATTESTATION_HEADER,
      message: why[check.reason],
      codeB: 'ATTESTATION_EXPIRED',
    });
  }

  /** The participant's screening, with a failed registered counterparty holding the address counted as a KYC/KYB failure. */
  screen(address: Address): ScreeningResult[] {
    const results = this.ready.screening.screen(address);
    const counterparty = this.ready.counterparties.failedHolding(address);
    if (counterparty === undefined) return results;
    return results.map((r) =>
      r.checkType === 'kyc'
        ? {
            checkType: 'kyc',
            result: 'rejected',
            reason: `registered counterparty ${counterparty.id} failed screening: ${counterparty.reason}`,
          }
        : r,
    );
  }

  /** Records one check (call inside the transaction of the change it belongs to). */
  record(check: ComplianceCheckRecord, at: number): LedgerEntry {
    return this.ready.records.record(check, at);
  }
}
