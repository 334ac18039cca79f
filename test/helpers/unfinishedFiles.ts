import type { Reporter, TestModule } from 'vitest/node';

/**
 * Names the test files that never finished. A worker process that dies (a crash in native code,
 * an abort) after its tests reported loses its file without failing a test: vitest counts the
 * file as neither passed nor failed and prints `Worker exited unexpectedly` without a name. This
 * prints one line per such file at the end of the run, where CI's tail shows it.
 */
export default class UnfinishedFiles implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    for (const m of testModules) {
      const state = m.state();
      if (state === 'passed' || state === 'failed' || state === 'skipped') continue;
      const tests = [...m.children.allTests()];
      const reported = tests.filter((t) => t.result().state !== 'pending').length;
      process.stdout.write(
        `vitest: ${m.relativeModuleId} did not finish (${state}; ${reported} of ${tests.length} tests had reported): its worker process died\n`,
      );
    }
  }
}
