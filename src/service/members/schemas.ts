import { z } from 'zod';
import { Address, IsoTimestamp } from '../api/wire.js';
import { ROLES } from '../store/members.js';

export const Role = z
  .enum(ROLES)
  .meta({ description: '`admin` (everything, admin routes included), `developer` (API use), `viewer` (read only).' });

export const WorkspaceParams = z.object({
  workspaceId: z
    .string()
    .regex(/^ws_[A-Za-z0-9]+$/)
    .meta({ description: "The caller's workspace (`ws_…`).", example: 'ws_0example' }),
});

export const MemberParams = WorkspaceParams.extend({
  address: Address.meta({ description: 'The member wallet address.' }),
});

export const MemberCreateRequest = z.strictObject({
  address: Address.meta({ description: 'Wallet address to add; it joins this workspace at its first sign-in.' }),
  role: Role,
});

export const MemberUpdateRequest = z.strictObject({ role: Role });

export const MemberView = z.object({
  object: z.literal('member'),
  id: z.string().meta({ description: 'Member id (`mem_…`).' }),
  workspaceId: z.string(),
  address: z.string().meta({ description: 'EIP-55 address.' }),
  role: Role,
  addedAt: IsoTimestamp,
  addedBy: z.string().nullable().meta({ description: 'User or API key id that added it; null for the creator of the workspace.' }),
});

export const MemberDeleted = z.object({
  object: z.literal('member'),
  address: z.string(),
  deleted: z.literal(true),
  sessionsRevoked: z.number().int().nonnegative().meta({ description: "The removed member's sessions in this workspace, ended." }),
});
