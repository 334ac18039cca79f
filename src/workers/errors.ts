import { BeforeArchiveStartError } from '../chain/archiveStart.js';
import type { CallResult } from '../execution/callResult.js';
import { CallError, CallTimeoutError, ExecutionFailedError, MessageError } from '../execution/callResult.js';
import { SimulateError, type SimulateErrorKind } from '../execution/simulate/errors.js';
import { MissingCodeError, MissingTrieNodeError, RemoteStateError, type RemoteStateFailure } from '../state/stateSource.js';

/**
 * Errors crossing the worker boundary. Structured cloning keeps an Error's message but not its
 * class, and the wire answer depends on the class (geth's texts and codes, methods/errors.ts):
 * the call engine's errors travel as their name and fields and are rebuilt as the same class.
 * Anything else becomes a plain Error with the worker's message and stack (an internal error).
 */
export type EncodedError =
  | { name: 'MessageError'; reason: string; gas: bigint }
  | { name: 'CallTimeoutError' }
  | { name: 'ExecutionFailedError'; result: CallResult }
  | { name: 'CallError'; message: string }
  | { name: 'SimulateError'; kind: SimulateErrorKind; message: string }
  | { name: 'BeforeArchiveStartError'; kind: 'state' | 'history'; number: bigint; start: bigint }
  | { name: 'RemoteStateError'; kind: RemoteStateFailure; message: string }
  | { name: 'MissingTrieNodeError'; hash: Uint8Array }
  | { name: 'MissingCodeError'; hash: Uint8Array }
  | { name: 'Error'; message: string; stack: string | undefined };

/** In the worker: what to send for `err`. */
export function encodeError(err: unknown): EncodedError {
  if (err instanceof MessageError) return { name: 'MessageError', reason: err.reason, gas: err.gas };
  if (err instanceof CallTimeoutError) return { name: 'CallTimeoutError' };
  if (err instanceof CallError) return { name: 'CallError', message: err.message };
  if (err instanceof ExecutionFailedError) return { name: 'ExecutionFailedError', result: err.result };
  if (err instanceof SimulateError) return { name: 'SimulateError', kind: err.kind, message: err.message };
  if (err instanceof BeforeArchiveStartError) return { name: 'BeforeArchiveStartError', kind: err.kind, number: err.number, start: err.start };
  if (err instanceof RemoteStateError) return { name: 'RemoteStateError', kind: err.kind, message: err.message };
  if (err instanceof MissingTrieNodeError) return { name: 'MissingTrieNodeError', hash: err.hash };
  if (err instanceof MissingCodeError) return { name: 'MissingCodeError', hash: err.codeHash };
  const e = err instanceof Error ? err : new Error(String(err));
  return { name: 'Error', message: e.message, stack: e.stack };
}

/** In the main thread: the error `encoded` stands for. `callTimeoutMs` is the workers' deadline. */
export function decodeError(encoded: unknown, callTimeoutMs: number): Error {
  const e = encoded as EncodedError;
  switch (e.name) {
    case 'MessageError':
      return new MessageError(e.reason, e.gas);
    case 'CallTimeoutError':
      return new CallTimeoutError(callTimeoutMs);
    case 'CallError':
      return new CallError(e.message);
    case 'ExecutionFailedError':
      return new ExecutionFailedError(e.result);
    case 'SimulateError':
      return new SimulateError(e.kind, e.message);
    case 'BeforeArchiveStartError':
      return new BeforeArchiveStartError(e.kind, e.number, e.start);
    case 'RemoteStateError':
      return new RemoteStateError(e.kind, e.message);
    case 'MissingTrieNodeError':
      return new MissingTrieNodeError(e.hash);
    case 'MissingCodeError':
      return new MissingCodeError(e.hash);
    default: {
      const err = new Error(`in an EVM worker: ${e.message}`);
      if (e.stack) err.stack = `${err.message}\n${e.stack.split('\n').slice(1).join('\n')}`;
      return err;
    }
  }
}
