/**
 * The names every part of the bench shares — the servers measured, the transports, the networks of
 * tracenode a case can ask — and the rounding of figures. A leaf module: the parts import it, and
 * `results.ts` (the shape of a whole run, which names the parts' report types) re-exports it, so
 * the parts and the results never import each other.
 */

/** The servers of a run, in the order of the tables' error column. */
export const SERVERS = ['tracenode', 'anvil', 'floor', 'nodeFloor'] as const;
/** A server of the run. */
export type ServerName = (typeof SERVERS)[number];
/** HTTP keep-alive (autocannon) or WebSocket (bench/wsLoad.ts). */
export type Transport = 'http' | 'ws';
/** tracenode's networks a case asks: the bench chain, the demo chain, the Starknet bench chain. */
/** `controlled`: the bench chain through a key with every operator control on (issue 14). */
export type Network = 'mainnet' | 'demo' | 'starknet' | 'controlled';

/** Rounds to `d` decimals, for the figures a report keeps. */
export const round = (x: number, d = 2): number => Math.round(x * 10 ** d) / 10 ** d;
