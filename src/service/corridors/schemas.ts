import { z } from 'zod';
import { Address, ChainId, UintString } from '../api/wire.js';

export const LockType = z.enum(['ResourceLock', 'Permit2Escrow', 'EIP3009Escrow']);
export type LockType = z.infer<typeof LockType>;

export const CorridorToken = z.object({
  address: Address,
  symbol: z.string(),
  decimals: z.number().int().min(0).max(255),
});

export const Corridor = z.object({
  id: z.string().meta({ description: 'Canonical id `<origin-chain>:<TOKEN>-<destination-chain>:<TOKEN>`.' }),
  originChainId: ChainId,
  destinationChainId: ChainId,
  inputToken: CorridorToken,
  outputToken: CorridorToken,
  solverCount: z.number().int().nonnegative().meta({ description: 'Solvers currently registered for the corridor.' }),
  minNotional: UintString.meta({ description: 'Minimum input amount, smallest unit (10,000 USD equivalent).' }),
  maxNotional: UintString.meta({ description: 'Maximum input amount, smallest unit.' }),
  oracle: Address.meta({ description: 'Input oracle on the origin chain.' }),
  lockTypes: z.array(LockType),
});
export type Corridor = z.infer<typeof Corridor>;

export const CorridorList = z.object({ corridors: z.array(Corridor) });
