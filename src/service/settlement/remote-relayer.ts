import type { Address } from 'viem';
import type { InstanceBus } from '../cluster/instance-bus.js';
import type { RelayRepository, RelayRequest, SignedRelay } from './relay-repository.js';
import type { Relayer, RelayOutcome } from './relayer.js';

/** The bus topic that wakes the singleton holder's relayers. */
export const RELAYS_QUEUED = 'relays.queued';

/**
 * A relayer on an instance that does not run the singleton work. One account's nonces must come from one sender,
 * so this instance never signs: it records the intent unsigned (queued) in the caller's transaction, tells the
 * singleton holder over the bus, and for `relayNow` waits for the holder to record the outcome in the store. A
 * lost message only delays the send: the holder also looks at its queue every second.
 */
export class RemoteRelayer implements Relayer {
  constructor(
    readonly address: Address,
    readonly chainId: number,
    private readonly deps: {
      bus: InstanceBus;
      relays: RelayRepository;
      /** How long `relayNow` waits for the outcome before answering "not decided yet". */
      waitMs: number;
      pollMs?: number;
    },
  ) {}

  kick(): void {
    this.deps.bus.publish(RELAYS_QUEUED, { chainId: this.chainId, account: this.address });
  }

  async relayNow<T>(
    request: RelayRequest,
    record: (signed: SignedRelay | undefined) => T,
  ): Promise<{ value: T; outcome: RelayOutcome | undefined }> {
    const value = record(undefined);
    this.kick();
    const deadline = Date.now() + this.deps.waitMs;
    const pollMs = this.deps.pollMs ?? 25;
    for (;;) {
      const relay = this.deps.relays.byKey(request.kind, request.key);
      if (relay !== undefined && (relay.status === 'mined' || relay.status === 'reverted' || relay.status === 'dropped')) {
        const outcome: RelayOutcome = { status: relay.status };
        if (relay.blockNumber !== null) outcome.blockNumber = relay.blockNumber;
        if (relay.error !== null) outcome.error = relay.error;
        return { value, outcome };
      }
      // The holder's broadcast failed undecided (it retries): answer as the holder answers its own callers.
      if (relay !== undefined && relay.status === 'sent' && relay.error !== null) return { value, outcome: undefined };
      if (Date.now() >= deadline) return { value, outcome: undefined };
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }
}
