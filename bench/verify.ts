/**
 * A case's answers, checked before it is measured, and the verifier every measured run applies
 * to each answer: tracenode's answer over HTTP must pass the case's sanity check and its
 * WebSocket answer must be the same; anvil's is cross-checked against tracenode's (a difference
 * is reported, and anvil is then held to its own first answer); the floors' must be their
 * constant.
 */
import { bodyFor, type CaseDef } from './cases.js';
import { floorAnswer } from './floor.js';
import { canonical, firstDifference, httpPost, parseJson, toAnswer } from './jsonRpc.js';
import type { Verify } from './load.js';
import type { Endpoints } from './processes.js';
import type { CaseResult, ServerName, ServerRun, Transport } from './results.js';
import { wsOnce } from './wsLoad.js';

/** The verifier of each server's run over each transport (absent: that run is skipped). */
export type Verifiers = Record<ServerName, Partial<Record<Transport, Verify>>>;

/** Right when the text is `bytes`, or when it parses (then `normalize`d) to the canonical form `canon`. */
function sameAnswer(bytes: string, canon: string, normalize?: (answer: unknown) => unknown): Verify {
  return (text) => {
    if (text === bytes) return true;
    const a = parseJson(text);
    return a !== undefined && canonical(normalize ? normalize(a) : a) === canon;
  };
}

/**
 * Asks each of `servers` the case once over HTTP and once over WebSocket (the node floor: HTTP
 * only) and checks the answers as the file comment says. Records problems, the cross-check, each
 * server's answer size and what its runs are checked against in `result`.
 */
export async function checkAnswers(def: CaseDef, servers: ServerName[], endpoints: Endpoints, result: CaseResult): Promise<Verifiers> {
  const tnEndpoint = endpoints.tracenode[def.network];
  const tnHttp = await httpPost(tnEndpoint.http, def.body, tnEndpoint.headers);
  const tnAnswer = parseJson(tnHttp.text);
  if (tnHttp.status !== 200 || tnAnswer === undefined) result.problems.push(`tracenode: HTTP ${tnHttp.status} ${tnHttp.text.slice(0, 200)}`);
  const insane = def.sanity?.(tnAnswer);
  if (insane) result.problems.push(`tracenode's answer: ${insane}`);
  const expectedCanon = canonical(tnAnswer);

  const verifiers: Verifiers = { tracenode: {}, anvil: {}, floor: {}, nodeFloor: {} };
  for (const s of servers) {
    const t = endpoints[s][def.network];
    const run: ServerRun = {};
    result.servers[s] = run;
    for (const tr of ['http', 'ws'] as const) {
      if (tr === 'ws' && s === 'nodeFloor') continue;
      const body = bodyFor(def, s);
      const text = tr === 'http' ? (s === 'tracenode' ? tnHttp.text : (await httpPost(t.http, body, t.headers)).text) : await wsOnce(t.ws, body, t.headers);
      const parsed = parseJson(text);
      if (parsed === undefined) {
        result.problems.push(`${s} ${tr}: not JSON: ${text.slice(0, 200)}`);
        verifiers[s][tr] = () => false;
        continue;
      }
      if (tr === 'http') run.answerBytes = Buffer.byteLength(text);
      if (s === 'floor' || s === 'nodeFloor') {
        const want = floorAnswer(def.body);
        if (text !== want) result.problems.push(`${s} ${tr}: ${text.slice(0, 100)} is not its constant`);
        verifiers[s][tr] = (x) => x === want;
        run.checkedAgainst = 'its constant answer';
      } else if (s === 'tracenode') {
        if (tr === 'ws' && canonical(parsed) !== expectedCanon)
          result.problems.push(`tracenode: WebSocket answer differs from HTTP: ${firstDifference(parsed, tnAnswer)}`);
        verifiers.tracenode[tr] = sameAnswer(text, expectedCanon);
        run.checkedAgainst = "tracenode's answer fetched before the run";
      } else {
        // anvil's answer as it is, else without the fields anvil adds (the case's normalizer)
        let norm: ((a: unknown) => unknown) | undefined;
        let diff = firstDifference(parsed, tnAnswer);
        if (diff && def.normalizeAnvil && !firstDifference(def.normalizeAnvil(parsed), tnAnswer)) {
          norm = def.normalizeAnvil;
          diff = undefined;
        }
        // For an error, code and data must agree; messages may differ (anvil appends decoded text).
        const anvilError = toAnswer(parsed)?.error;
        const tnError = toAnswer(tnAnswer)?.error;
        const errorsAgree = anvilError && tnError && anvilError.code === tnError.code && anvilError.data === tnError.data;
        if (!diff || errorsAgree) {
          if (tr === 'http')
            result.crossCheck = diff
              ? `equal code and data (messages: anvil "${anvilError?.message}", tracenode "${tnError?.message}")`
              : norm
                ? 'equal (after removing anvil-only fields)'
                : 'equal';
          verifiers.anvil[tr] = diff ? sameAnswer(text, canonical(parsed)) : sameAnswer(text, expectedCanon, norm);
          run.checkedAgainst = diff ? "anvil's own first answer (same code and data as tracenode's)" : "tracenode's answer (cross-checked)";
        } else {
          if (tr === 'http') result.crossCheck = `differs: ${diff}`;
          verifiers.anvil[tr] = sameAnswer(text, canonical(parsed));
          run.checkedAgainst = "anvil's own first answer (it differs from tracenode's)";
        }
      }
    }
  }
  return verifiers;
}
