import { describe, expect, it } from 'vitest';
import { isTerminal, mergeOrder, orderFromDetail, orderFromEvent, orderFromSettlement } from './orders.js';

const detail = {
  orderId: 'ord_1',
  status: 'Filled',
  settlementPath: 'direct',
  originChainId: 31337,
  destinationChainId: 31338,
  inputAmount: '25000000000',
  outputAmount: '24990000000',
  originTxHash: '0xaa',
  destinationTxHash: '0xbb',
  oracleAttestationHash: null,
  settledAt: null,
};

describe('orders', () => {
  it('reads the order detail of the spec, and extra fields when present', () => {
    expect(orderFromDetail(detail)).toEqual({
      id: 'ord_1',
      status: 'Filled',
      rail: 'direct',
      originChainId: 31337,
      destinationChainId: 31338,
      inputAmount: '25000000000',
      outputAmount: '24990000000',
      originTxHash: '0xaa',
      destinationTxHash: '0xbb',
    });
    const richer = orderFromDetail({
      ...detail,
      lockType: 'Permit2Escrow',
      corridor: 'alpha:USDC-beta:USDC',
      createdAt: '2030-01-01T00:00:00.000Z',
      fillDeadline: 1_893_459_600,
    });
    expect(richer).toMatchObject({
      lockType: 'Permit2Escrow',
      corridor: 'alpha:USDC-beta:USDC',
      createdAt: Date.UTC(2030, 0, 1),
      fillDeadline: Date.UTC(2030, 0, 1, 1),
    });
    expect(orderFromDetail({ status: 'Filled' })).toBeUndefined();
  });

  it('reads settlements, whose Settled is the order’s Claimed', () => {
    expect(orderFromSettlement({ orderId: 'ord_1', workspaceId: 'ws_1', state: 'Settled', timeline: [] })).toEqual({
      id: 'ord_1',
      workspaceId: 'ws_1',
      status: 'Claimed',
    });
  });

  it('reads order events: the type says settled or failed; the event’s own `pending` is not a status', () => {
    const created = orderFromEvent({
      type: 'order.created',
      id: 'evt_1',
      order: { id: 'ord_1', corridor: 'alpha:USDC-beta:USDC', status: 'pending', fillDeadline: 1_893_459_600, amount: '25000.00' },
    });
    expect(created).toEqual({ id: 'ord_1', corridor: 'alpha:USDC-beta:USDC', fillDeadline: Date.UTC(2030, 0, 1, 1) });
    expect(
      orderFromEvent({
        type: 'order.settled',
        id: 'evt_2',
        order: { id: 'ord_1', originTxHash: '0xaa', destinationTxHash: '0xbb', settledAt: '2030-01-01T00:10:00.000Z' },
      }),
    ).toMatchObject({
      status: 'Claimed',
      settledAt: Date.UTC(2030, 0, 1, 0, 10),
    });
    expect(orderFromEvent({ type: 'order.failed', id: 'evt_3', order: { id: 'ord_1' } })).toEqual({ id: 'ord_1', status: 'Refunded' });
    expect(orderFromEvent({ type: 'compliance.event', id: 'evt_4', compliance: { orderId: 'ord_1' } })).toEqual({ id: 'ord_1' });
    expect(orderFromEvent({ type: 'rfq.created', id: 'evt_5', rfq: { id: 'rfq_1' } })).toBeUndefined();
  });

  it('never lets a late event move the status back; a detail read may', () => {
    const claimed = { id: 'ord_1', status: 'Claimed', lockType: 'Permit2Escrow' };
    expect(mergeOrder(claimed, { id: 'ord_1', status: 'Filled', destinationTxHash: '0xbb' })).toEqual({
      ...claimed,
      destinationTxHash: '0xbb',
    });
    expect(mergeOrder(claimed, { id: 'ord_1', status: 'Filled' }, true).status).toBe('Filled');
    expect(mergeOrder(claimed, { id: 'ord_1' })).toEqual(claimed);
    expect(mergeOrder(undefined, { id: 'ord_2', status: undefined })).toEqual({ id: 'ord_2' });
    expect([isTerminal('Claimed'), isTerminal('Refunded'), isTerminal('Attested'), isTerminal(undefined)]).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });
});
