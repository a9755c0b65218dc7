import type { Hex } from 'viem';
import type { ScenarioContext } from '../core/context.js';
import { fail } from '../core/errors.js';
import type { Step } from '../core/scenario.js';

export interface SignOptions {
  quote: string;
  /** Another taker's key signs (a wrong signer). Default: the quote's taker. */
  signer?: string;
  /** Changes the typed data before signing (a tampered order): receives the message object. */
  // biome-ignore lint/suspicious/noExplicitAny: a tamper edits any field of the EIP-712 message, whatever its type
  tamper?: (message: Record<string, any>, context: ScenarioContext) => void;
  /** Signs another nonce than the one handed out (Permit2 and ResourceLock messages carry it as `nonce`). */
  nonce?: (context: ScenarioContext) => string;
  /** What the step says it does, for the progress line. */
  describe?: string;
}

/** Signs the quote's EIP-712 payload, as handed out or altered. */
export function sign(name: string, options: SignOptions): Step {
  return {
    title: `sign ${name}: ${options.describe ?? `quote ${options.quote}`}${options.signer ? ` by ${options.signer}` : ''}`,
    async run(context) {
      const quoted = context.quote(options.quote);
      const signer = options.signer === undefined ? quoted.taker : context.taker(options.signer);
      const typedData = structuredClone(
        quoted.quote.typedData ?? fail(`quote ${options.quote} carries no typed data (requested without user?)`),
      ) as {
        // biome-ignore lint/suspicious/noExplicitAny: the message handed to tamper (see above)
        message: Record<string, any>;
      };
      let nonce = quoted.quote.nonce ?? fail(`quote ${options.quote} carries no nonce`);
      if (options.nonce !== undefined) {
        nonce = options.nonce(context);
        if (!('nonce' in typedData.message)) fail(`the ${quoted.quote.lockType} payload has no nonce field to replace`);
        typedData.message.nonce = nonce;
      }
      options.tamper?.(typedData.message, context);
      const signature: Hex = await signer.sign(typedData);
      context.signatures.set(name, { quote: options.quote, signer, signature, nonce });
      return `${signature.slice(0, 10)}… with nonce ${nonce}`;
    },
  };
}
