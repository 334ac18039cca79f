/**
 * A follower's logger for tests that keeps what it is told: `info <message>`, and for warnings
 * and errors the message with its fields as JSON (what a failing test prints to say why).
 */
export function recordingLog(): {
  lines: string[];
  log: { info(o: object, m: string): void; warn(o: object, m: string): void; error(o: object, m: string): void; debug(): void };
} {
  const lines: string[] = [];
  return {
    lines,
    log: {
      info: (_o, m) => void lines.push(`info ${m}`),
      warn: (o, m) => void lines.push(`warn ${m} ${JSON.stringify(o)}`),
      error: (o, m) => void lines.push(`error ${m} ${JSON.stringify(o)}`),
      debug: () => undefined,
    },
  };
}
