import { describe, expect, it } from 'vitest';
import { MethodNotSupportedError, ServerError, UpstreamAnswerError } from '../../rpc/errors.js';
import type { EthContext } from '../context.js';
import type { UpstreamPool } from './_shared/upstreamPool.js';
import { sendRawTransaction } from './sendRawTransaction.js';
import { sendRawTransactionSync } from './sendRawTransactionSync.js';

const RAW = '0x02f86c827a6980843b9aca0085174876e800825208945bb61e280b6ba428b3ee577b26f8768fb9c62ca20780c0';
const ctxWith = (pool?: UpstreamPool) => ({ pool }) as unknown as EthContext;

describe('eth_sendRawTransaction and eth_sendRawTransactionSync', () => {
  it('without a followed node: -32004 whatever the params (nothing is decoded)', async () => {
    for (const params of [[RAW], ['0xzz'], []]) {
      await expect(sendRawTransaction.call(ctxWith(), params)).rejects.toEqual(
        new MethodNotSupportedError('eth_sendRawTransaction is not supported: this node is read-only'),
      );
    }
    await expect(sendRawTransactionSync.call(ctxWith(), [RAW])).rejects.toEqual(
      new MethodNotSupportedError('eth_sendRawTransactionSync is not supported: this node is read-only'),
    );
  });

  it('relayed: the bytes sent as given (lower-case hex), the result returned as the upstream gave it', async () => {
    const sent: unknown[] = [];
    const pool: UpstreamPool = {
      forward: async (method, params) => {
        sent.push([method, params]);
        return { result: '0xabc' };
      },
    };
    expect(await sendRawTransaction.call(ctxWith(pool), [RAW.toUpperCase().replace('0X', '0x')])).toBe('0xabc');
    expect(await sendRawTransactionSync.call(ctxWith(pool), [RAW, '0x7d0'])).toBe('0xabc');
    expect(sent).toEqual([
      ['eth_sendRawTransaction', [RAW]],
      ['eth_sendRawTransactionSync', [RAW, '0x7d0']],
    ]);
  });

  it("the upstream's error is the client's, code, message and data unchanged", async () => {
    const pool: UpstreamPool = {
      forward: async () => ({ error: { code: 4, message: "The transaction was added to the mempool but wasn't processed in 2000ms.", data: '0x12' } }),
    };
    const err = await sendRawTransactionSync.call(ctxWith(pool), [RAW]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamAnswerError);
    expect((err as UpstreamAnswerError).toJSON()).toEqual({
      code: 4,
      message: "The transaction was added to the mempool but wasn't processed in 2000ms.",
      data: '0x12',
    });
  });

  it('no answer from the upstream: -32000 saying which call went unanswered and why', async () => {
    const pool: UpstreamPool = { forward: () => Promise.reject(new Error('upstream unreachable: ECONNREFUSED')) };
    await expect(sendRawTransaction.call(ctxWith(pool), [RAW])).rejects.toEqual(
      new ServerError('the followed node did not answer eth_sendRawTransaction: upstream unreachable: ECONNREFUSED'),
    );
  });

  it('params that are not hex data are -32602 before anything is sent', async () => {
    const pool: UpstreamPool = { forward: () => Promise.reject(new Error('must not be called')) };
    await expect(sendRawTransaction.call(ctxWith(pool), ['0xzz'])).rejects.toMatchObject({ code: -32602, message: 'invalid argument 0: invalid hex string' });
  });
});
