import type { MethodDefinition } from '../rpc/method.js';
import type { EthContext } from './context.js';
import { erigonGetHeaderByNumber } from './erigon/getHeaderByNumber.js';
import { otsGetApiLevel } from './ots/getApiLevel.js';
import { otsGetBlockDetails } from './ots/getBlockDetails.js';
import { otsGetBlockDetailsByHash } from './ots/getBlockDetailsByHash.js';
import { otsGetBlockTransactions } from './ots/getBlockTransactions.js';
import { otsGetContractCreator } from './ots/getContractCreator.js';
import { otsGetHeaderByNumber } from './ots/getHeaderByNumber.js';
import { otsGetInternalOperations } from './ots/getInternalOperations.js';
import { otsGetTransactionBySenderAndNonce } from './ots/getTransactionBySenderAndNonce.js';
import { otsGetTransactionError } from './ots/getTransactionError.js';
import { otsHasCode } from './ots/hasCode.js';
import { otsSearchTransactionsAfter } from './ots/searchTransactionsAfter.js';
import { otsSearchTransactionsBefore } from './ots/searchTransactionsBefore.js';
import { otsTraceTransaction } from './ots/traceTransaction.js';

/**
 * Otterscan's API, level 8, as erigon serves it (docs/methods.md#otterscan), sorted by wire name:
 * - `erigon_getHeaderByNumber`, `ots_getHeaderByNumber`: a header (Otterscan's probe and latest block);
 * - `ots_getApiLevel`: 8;
 * - `ots_getBlockDetails(ByHash)`, `ots_getBlockTransactions`: blocks with issuance and fees, paged transactions with receipts;
 * - `ots_getContractCreator`, `ots_getTransactionBySenderAndNonce`: lookups in the address history;
 * - `ots_getInternalOperations`, `ots_getTransactionError`, `ots_traceTransaction`: a transaction's call tree (replayed, cached);
 * - `ots_hasCode`: whether an account holds code at a block;
 * - `ots_searchTransactionsAfter/Before`: an address's transactions, paged, from the address history.
 */
export const otsMethods = [
  erigonGetHeaderByNumber, // erigon_getHeaderByNumber
  otsGetApiLevel, // ots_getApiLevel
  otsGetBlockDetails, // ots_getBlockDetails
  otsGetBlockDetailsByHash, // ots_getBlockDetailsByHash
  otsGetBlockTransactions, // ots_getBlockTransactions
  otsGetContractCreator, // ots_getContractCreator
  otsGetHeaderByNumber, // ots_getHeaderByNumber
  otsGetInternalOperations, // ots_getInternalOperations
  otsGetTransactionBySenderAndNonce, // ots_getTransactionBySenderAndNonce
  otsGetTransactionError, // ots_getTransactionError
  otsHasCode, // ots_hasCode
  otsSearchTransactionsAfter, // ots_searchTransactionsAfter
  otsSearchTransactionsBefore, // ots_searchTransactionsBefore
  otsTraceTransaction, // ots_traceTransaction
] as const satisfies readonly MethodDefinition<EthContext>[];
