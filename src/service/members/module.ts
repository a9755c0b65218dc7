import type { EvidenceModule } from '../evidence/module.js';
import type { ServiceContext, ServiceModule } from '../module.js';
import { Members } from './members.js';
import { mountMemberRoutes } from './routes.js';

/** Workspace members and roles (`/api/v1/workspaces/{id}/members`); the table itself is a platform store table. */
export class MembersModule implements ServiceModule {
  readonly name = 'members';
  private _members: Members | undefined;

  constructor(private readonly options: { evidence: EvidenceModule }) {}

  setup(context: ServiceContext): void {
    const { evidence } = this.options;
    this._members = new Members({ repos: context.repos, clock: context.clock, outbox: evidence.outbox, ledger: evidence.ledger });
    mountMemberRoutes(context.routes(), context.openapi, this._members, context.repos);
  }

  get members(): Members {
    if (this._members === undefined) throw new Error('members module used before setup');
    return this._members;
  }
}
