/** Wire shapes of the corridor list: the service validates and documents with them, clients derive their types. */
import { z } from 'zod';
import { Address, ChainId, UintString } from './primitives.js';
import { LockType } from './vocabulary.js';

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
