import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SETTINGS, settingNames } from '../../src/config/settings.js';

/**
 * deploy/: no Docker engine runs here, so docker-compose.yml is not started in CI (the same
 * topology runs without Docker in replicas.test.ts, with deploy/haproxy.cfg itself). What can be
 * checked without Docker is checked here: every `TRACENODE_*` variable the replicas set is a real
 * setting, every variable haproxy.cfg reads is set for HAProxy, and each backend names a replica.
 */

const DEPLOY = resolve(import.meta.dirname, '../../deploy');
type Service = { environment?: Record<string, string>; volumes?: string[]; stop_grace_period?: string };
// Compose resolves `<<:` merge keys (YAML 1.1); so must this parse.
const compose = parse(readFileSync(resolve(DEPLOY, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, Service> };
const haproxyCfg = readFileSync(resolve(DEPLOY, 'haproxy.cfg'), 'utf8');

describe('deploy/', () => {
  it('three replicas, each with its own datadir volume, every TRACENODE_* variable a known setting', () => {
    const known = new Set(settingNames().map((n) => n.env));
    const replicas = Object.entries(compose.services).filter(([name]) => name.startsWith('replica'));
    expect(replicas.map(([name]) => name)).toEqual(['replica1', 'replica2', 'replica3']);
    for (const [name, service] of replicas) {
      const vars = Object.keys(service.environment ?? {});
      expect(vars.filter((v) => !known.has(v))).toEqual([]);
      expect(service.environment?.TRACENODE_REDIS).toBe('redis://redis:6379/0');
      expect(service.volumes).toContain(`${name}:/data`);
    }
  });

  it("each replica may drain for its whole grace period before Docker's SIGKILL", () => {
    for (const name of ['replica1', 'replica2', 'replica3']) {
      const grace = /^(\d+)s$/.exec(compose.services[name].stop_grace_period ?? '')?.[1];
      expect(Number(grace) * 1000).toBeGreaterThan(SETTINGS.transport.shutdownDrainMs.default);
    }
  });

  it("HAProxy takes a draining replica out (its /health turns 503) before the replica's notice ends, and retries what it refused", () => {
    const ms = (v: string) => (v.endsWith('ms') ? Number(v.slice(0, -2)) : Number(v.slice(0, -1)) * 1000);
    const server = /^\s*default-server check inter (\S+) fastinter (\S+) fall (\d+) rise (\d+)$/m.exec(haproxyCfg);
    expect(server).not.toBeNull();
    const [, inter, fastinter, fall] = server!;
    // The first failed check comes within `inter`, the next ones `fastinter` apart.
    expect(ms(inter) + (Number(fall) - 1) * ms(fastinter)).toBeLessThan(SETTINGS.transport.shutdownNoticeMs.default);
    expect(/^\s*retry-on (.*)$/m.exec(haproxyCfg)?.[1].split(' ')).toEqual(expect.arrayContaining(['conn-failure', 'empty-response', '503']));
  });

  it('HAProxy gets every variable haproxy.cfg reads, and each server is a replica on its port', () => {
    const lines = haproxyCfg.split('\n').filter((l) => !l.trim().startsWith('#'));
    const read = lines.flatMap((l) => [...l.matchAll(/"\$\{(\w+)\}"/g)].map((m) => m[1]));
    expect(read).toEqual(['LISTEN', 'REPLICA1', 'REPLICA2', 'REPLICA3']);
    const env = compose.services.haproxy.environment ?? {};
    expect(Object.keys(env).sort()).toEqual([...read].sort());
    for (const i of [1, 2, 3]) expect(env[`REPLICA${i}`]).toBe(`replica${i}:${compose.services[`replica${i}`].environment?.TRACENODE_PORT}`);
    expect(compose.services.haproxy.volumes).toContain('./haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro');
  });
});
