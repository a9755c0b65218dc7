/**
 * Upstream OIF (openintentsframework/oif-contracts at 5323b1b) as an outside client writes it: human-readable ABI
 * copied from upstream's interfaces and helpers written from upstream's libraries, for ethers v6. Shared by the
 * interop tests in this folder, which import nothing of ours for talking to the contracts.
 */
import { AbiCoder, type ContractTransactionResponse, keccak256, solidityPacked, zeroPadValue } from 'ethers';

// ---- upstream ABI, human-readable ---------------------------------------------------------------------------

export const MANDATE_OUTPUT =
  'tuple(bytes32 oracle, bytes32 settler, uint256 chainId, bytes32 token, uint256 amount, bytes32 recipient, bytes callbackData, bytes context)';
export const STANDARD_ORDER = `tuple(address user, uint256 nonce, uint256 originChainId, uint32 expires, uint32 fillDeadline, address inputOracle, uint256[2][] inputs, ${MANDATE_OUTPUT}[] outputs)`;
export const SOLVE_PARAMS = 'tuple(uint32 timestamp, bytes32 solver)[]';

export const ESCROW_ABI = [
  `function open(${STANDARD_ORDER} order)`,
  `function openFor(${STANDARD_ORDER} order, address sponsor, bytes signature)`,
  `function finalise(${STANDARD_ORDER} order, ${SOLVE_PARAMS} solveParams, bytes32 destination, bytes call)`,
  `function finaliseWithSignature(${STANDARD_ORDER} order, ${SOLVE_PARAMS} solveParams, bytes32 destination, bytes call, bytes orderOwnerSignature)`,
  `function refund(${STANDARD_ORDER} order)`,
  `function orderIdentifier(${STANDARD_ORDER} order) view returns (bytes32)`,
  'function orderStatus(bytes32 orderId) view returns (uint8)',
  'function DOMAIN_SEPARATOR() view returns (bytes32)',
  `event Open(bytes32 indexed orderId, ${STANDARD_ORDER} order)`,
  'event Finalised(bytes32 indexed orderId, bytes32 solver, bytes32 destination)',
  'event Refunded(bytes32 indexed orderId)',
];
export const OUTPUT_SETTLER_ABI = [
  `function fill(bytes32 orderId, ${MANDATE_OUTPUT} output, uint48 fillDeadline, bytes fillerData) payable returns (bytes32)`,
  'function getFillRecord(bytes32 orderId, bytes32 outputHash) view returns (bytes32 payloadHash)',
  `function getFillRecord(bytes32 orderId, ${MANDATE_OUTPUT} output) view returns (bytes32 payloadHash)`,
  `event OutputFilled(bytes32 indexed orderId, bytes32 solver, uint32 timestamp, ${MANDATE_OUTPUT} output, uint256 finalAmount)`,
];
export const INPUT_ORACLE_ABI = [
  'function isProven(uint256 remoteChainId, bytes32 remoteOracle, bytes32 application, bytes32 dataHash) view returns (bool)',
  'function efficientRequireProven(bytes proofSeries) view',
  'event OutputProven(uint256 chainid, bytes32 remoteIdentifier, bytes32 application, bytes32 payloadHash)',
];
export const ERC20_ABI = [
  'function approve(address spender, uint256 amount) returns (bool)',
  'function balanceOf(address) view returns (uint256)',
];

// ---- helpers written from upstream's libraries (MandateOutputEncodingLib, StandardOrderType) ------------------

export interface Output {
  oracle: string;
  settler: string;
  chainId: bigint;
  token: string;
  amount: bigint;
  recipient: string;
  callbackData: string;
  context: string;
}
export interface Order {
  user: string;
  nonce: bigint;
  originChainId: bigint;
  expires: number;
  fillDeadline: number;
  inputOracle: string;
  inputs: [bigint, bigint][];
  outputs: Output[];
}

export const id32 = (address: string) => zeroPadValue(address, 32).toLowerCase();
const byteLength = (hex: string) => (hex.length - 2) / 2;

/** MandateOutputEncodingLib.getMandateOutputHash. */
export function mandateOutputHash(o: Output): string {
  return keccak256(
    solidityPacked(
      ['bytes32', 'bytes32', 'uint256', 'bytes32', 'uint256', 'bytes32', 'uint16', 'bytes', 'uint16', 'bytes'],
      [
        o.oracle,
        o.settler,
        o.chainId,
        o.token,
        o.amount,
        o.recipient,
        byteLength(o.callbackData),
        o.callbackData,
        byteLength(o.context),
        o.context,
      ],
    ),
  );
}

/** MandateOutputEncodingLib.encodeFillDescription. */
export function fillDescription(solver: string, orderId: string, timestamp: number, o: Output): string {
  return solidityPacked(
    ['bytes32', 'bytes32', 'uint32', 'bytes32', 'uint256', 'bytes32', 'uint16', 'bytes', 'uint16', 'bytes'],
    [
      solver,
      orderId,
      timestamp,
      o.token,
      o.amount,
      o.recipient,
      byteLength(o.callbackData),
      o.callbackData,
      byteLength(o.context),
      o.context,
    ],
  );
}

/** StandardOrderType.orderIdentifier (origin chain, settler). */
export function orderIdentifier(order: Order, chainId: bigint, settler: string): string {
  const coder = AbiCoder.defaultAbiCoder();
  const inputsHash = keccak256(solidityPacked(['uint256[2][]'], [order.inputs]));
  const outputs = coder.encode([`${MANDATE_OUTPUT}[]`], [order.outputs]);
  return keccak256(
    solidityPacked(
      ['uint256', 'address', 'address', 'uint256', 'uint32', 'uint32', 'address', 'bytes32', 'bytes'],
      [chainId, settler, order.user, order.nonce, order.expires, order.fillDeadline, order.inputOracle, inputsHash, outputs],
    ),
  );
}

// ---- small helpers ------------------------------------------------------------------------------------------

export async function mined(tx: Promise<ContractTransactionResponse>) {
  const receipt = await (await tx).wait();
  if (receipt === null || receipt.status !== 1) throw new Error('transaction failed');
  return receipt;
}

export async function until<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
