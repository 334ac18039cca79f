import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One request/response pair of an execution-apis `.io` file. */
export interface IoCase {
  method: string;
  file: string;
  comment: string;
  /** `// speconly:` cases are checked for shape only by hive. */
  specOnly: boolean;
  exchanges: Array<{ request: string; response: string }>;
}

/** Reads every `.io` file of the given method folders (`>>` request line, `<<` response line). */
export function readIoCases(root: string, methods: readonly string[]): IoCase[] {
  const cases: IoCase[] = [];
  for (const method of methods) {
    for (const file of readdirSync(join(root, method))
      .filter((f) => f.endsWith('.io'))
      .sort()) {
      const lines = readFileSync(join(root, method, file), 'utf8').split('\n');
      const comments = lines.filter((l) => l.startsWith('//'));
      const exchanges: IoCase['exchanges'] = [];
      let request: string | undefined;
      for (const line of lines) {
        if (line.startsWith('>> ')) request = line.slice(3);
        else if (line.startsWith('<< ') && request !== undefined) {
          exchanges.push({ request, response: line.slice(3) });
          request = undefined;
        }
      }
      cases.push({
        method,
        file,
        comment: comments[0]?.replace(/^\/\/\s*/, '') ?? '',
        specOnly: comments.some((c) => c.includes('speconly')),
        exchanges,
      });
    }
  }
  return cases;
}
