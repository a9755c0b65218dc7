import { type AbiEvent, type Hex, decodeEventLog, encodeAbiParameters, encodeEventTopics, toEventSelector } from 'viem';
import { describe, expect, it } from 'vitest';
import { InputOracleArtifact } from '../../contracts/artifacts/InputOracle.js';
import { InputSettlerEscrowArtifact } from '../../contracts/artifacts/InputSettlerEscrow.js';
import { OutputOracleArtifact } from '../../contracts/artifacts/OutputOracle.js';
import { OutputSettlerArtifact } from '../../contracts/artifacts/OutputSettler.js';
import { decodeLog, eventsBySelector } from './log-decoder.js';

const EVENTS = [InputSettlerEscrowArtifact, OutputSettlerArtifact, OutputOracleArtifact, InputOracleArtifact].flatMap(
  (artifact) => (artifact.abi as readonly { type: string }[]).filter((item) => item.type === 'event') as AbiEvent[],
);

/** A deterministic value of an ABI type, so every input of every event is exercised. */
function sample(param: { type: string; components?: readonly { type: string }[] }, seed: number): unknown {
  const array = /^(.*)\[(\d*)\]$/.exec(param.type);
  if (array) {
    const length = array[2] === '' ? 2 : Number(array[2]);
    return Array.from({ length }, (_, i) => sample({ ...param, type: array[1]! }, seed + i + 1));
  }
  if (param.type === 'tuple') {
    const components = param.components as readonly { name?: string; type: string; components?: readonly { type: string }[] }[];
    return Object.fromEntries(components.map((c, i) => [c.name!, sample(c, seed * 7 + i)]));
  }
  if (param.type === 'address') return `0x${(seed + 1).toString(16).padStart(40, '0')}`;
  if (param.type === 'bool') return seed % 2 === 0;
  if (param.type === 'string') return `s${seed}`;
  if (param.type === 'bytes') return `0x${'ab'.repeat((seed % 5) + 1)}`;
  const fixed = /^bytes(\d+)$/.exec(param.type);
  if (fixed) return `0x${((seed + 3) % 256).toString(16).padStart(2, '0').repeat(Number(fixed[1]))}`;
  const int = /^u?int(\d+)$/.exec(param.type);
  if (int) return Number(int[1]) <= 48 ? seed + 11 : BigInt(seed) * 10n ** 18n + 5n;
  throw new Error(`no sample for ${param.type}`);
}

describe('decodeLog', () => {
  it('decodes every watched event as viem decodeEventLog does', () => {
    expect(EVENTS.length).toBeGreaterThan(3);
    for (const [n, event] of EVENTS.entries()) {
      const args = Object.fromEntries(event.inputs.map((input, i) => [input.name!, sample(input, n * 13 + i)]));
      const topics = encodeEventTopics({ abi: [event], eventName: event.name, args } as never) as Hex[];
      const dataInputs = event.inputs.filter((input) => !input.indexed);
      const data = encodeAbiParameters(
        dataInputs,
        dataInputs.map((input) => args[input.name!]),
      );
      const prepared = eventsBySelector([event]).get(toEventSelector(event))!;
      expect(decodeLog(prepared, topics, data)).toEqual(decodeEventLog({ abi: [event], topics: topics as [Hex], data }));
    }
  });

  it('refuses a log that decodeEventLog refuses: a missing topic, truncated data', () => {
    const event = EVENTS.find((item) => item.name === 'OutputFilled')!;
    const args = Object.fromEntries(event.inputs.map((input, i) => [input.name!, sample(input, i)]));
    const topics = encodeEventTopics({ abi: [event], eventName: event.name, args } as never) as Hex[];
    const dataInputs = event.inputs.filter((input) => !input.indexed);
    const data = encodeAbiParameters(
      dataInputs,
      dataInputs.map((input) => args[input.name!]),
    );
    const prepared = eventsBySelector([event]).get(toEventSelector(event))!;
    const cases: [Hex[], Hex][] = [
      [topics.slice(0, 1), data],
      [topics, data.slice(0, 66) as Hex],
      [topics, '0x'],
    ];
    for (const [t, d] of cases) {
      expect(() => decodeEventLog({ abi: [event], topics: t as [Hex], data: d })).toThrow();
      expect(() => decodeLog(prepared, t, d)).toThrow();
    }
  });
});
