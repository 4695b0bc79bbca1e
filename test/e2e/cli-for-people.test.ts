/**
 * The operator CLI for a person at a terminal: help as text (a usage line, what each command and
 * option does, the environment it reads), errors that say what to change, and a gateway found
 * without GATEWAY_URL or GATEWAY_ADMIN_TOKEN through what a gateway started from the same folder
 * left in its data folder. The CLI runs in this process (its `main`), against a real gateway over
 * real HTTP: the process boundary is not what these tests are about.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/main.js';
import { announceGatewayInDataFolder, runningGatewayIn } from '../../src/infra/localGateway.js';
import { lockOwner } from '../../src/infra/dataFolderLock.js';
import { gatewayEnv, runCliInProcess } from '../support/cli.js';
import { useGateway } from '../support/gateway.js';

const gateway = useGateway();
const quiet = { warn: () => undefined };
let folders: string[] = [];
const newFolder = async () => {
  const folder = await mkdtemp(path.join(tmpdir(), 'gateway-cli-'));
  folders.push(folder);
  return folder;
};
afterAll(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
  folders = [];
});

/** Whitespace as one space: help wraps long lines. */
const flat = (text: string) => text.replace(/\s+/g, ' ');

describe('help', () => {
  it('gateway help is text: a usage line, every command with what it does, and the environment it reads', async () => {
    for (const args of [['help'], ['--help'], ['-h']]) {
      const { code, stdout, json } = await runCliInProcess(args, {});
      expect(code, args.join(' ')).toBe(0);
      expect(json, 'not JSON').toBeUndefined();
      expect(stdout.split('\n')[0]).toBe('Usage: gateway <command> [arguments] [options]');
      for (const name of Object.keys(COMMANDS)) expect(stdout).toMatch(new RegExp(`^  ${name} +\\S`, 'm'));
      expect(flat(stdout)).toContain("GATEWAY_URL the gateway's API address (default: the one in the data folder's gateway.json");
      expect(flat(stdout)).toContain('else http://127.0.0.1:3000');
      expect(flat(stdout)).toContain("GATEWAY_ADMIN_TOKEN the operator token to act with (default: the data folder's admin-token file");
    }
  });

  it('gateway COMMAND --help (or -h, or gateway help COMMAND) is that command’s usage, description, options and environment', async () => {
    for (const [name, command] of Object.entries(COMMANDS)) {
      const words = name.split(' ');
      const [long, short, asked] = await Promise.all([
        runCliInProcess([...words, '--help'], {}),
        runCliInProcess([...words, '-h'], {}),
        runCliInProcess(['help', ...words], {}),
      ]);
      expect([long.code, short.code, asked.code], name).toEqual([0, 0, 0]);
      expect(short.stdout).toBe(long.stdout);
      expect(asked.stdout).toBe(long.stdout);
      const text = flat(long.stdout);
      expect(text.startsWith(`Usage: gateway ${command.usage} `), name).toBe(true);
      expect(text).toContain(flat(command.summary));
      // Every option the usage line shows is explained.
      for (const flag of command.usage.match(/--[a-z-]+/g) ?? [])
        expect(long.stdout, `${name} explains ${flag}`).toMatch(new RegExp(`^  ${flag}\\b.*\\S`, 'm'));
      expect(text).toContain('-h, --help show this help');
      expect(text).toContain('GATEWAY_URL');
      expect(text).toContain('GATEWAY_ADMIN_TOKEN');
    }
  });

  it('asks for help with a flag even among wrong arguments, and names an unknown command as JSON', async () => {
    const amid = await runCliInProcess(['sandbox', 'pay', '--phone', '--help'], {});
    expect(amid.stdout.startsWith('Usage: gateway sandbox pay ORDER_ID')).toBe(true);
    const unknown = await runCliInProcess(['help', 'org', 'delete'], {});
    expect(unknown.code).toBe(1);
    expect(unknown.json.error).toMatch(/^unknown command 'org delete'; commands: org create, .*; see gateway help$/);
  });

  it('keeps every other command’s output one JSON object', async () => {
    const { code, json } = await runCliInProcess(['operator-token', 'list'], gatewayEnv(gateway));
    expect(code).toBe(0);
    expect(json).toEqual({ tokens: expect.any(Array) });
  });
});

describe('errors say what to change', () => {
  it('an unreachable gateway: is it running? set GATEWAY_URL', async () => {
    const { code, json } = await runCliInProcess(['org', 'list'], { GATEWAY_URL: 'http://127.0.0.1:9', GATEWAY_ADMIN_TOKEN: gateway.adminToken });
    expect(code).toBe(1);
    expect(json.error).toMatch(/^cannot reach the gateway at http:\/\/127\.0\.0\.1:9: is it running\? Set GATEWAY_URL to its address \(.+\)$/);
  });

  it('no token: names GATEWAY_ADMIN_TOKEN and the admin-token file looked for', async () => {
    const folder = await newFolder();
    const { code, json } = await runCliInProcess(['org', 'list'], { GATEWAY_URL: gateway.url, GATEWAY_DATA_DIR: folder });
    expect(code).toBe(1);
    expect(json.error).toMatch(/^GATEWAY_ADMIN_TOKEN is not set: set it to an operator token/);
    expect(json.error).toContain(path.join(folder, 'admin-token'));
  });

  it('a private webhook address: how to receive events on this machine instead', async () => {
    const organization = await gateway.createOrganization();
    const { code, json } = await runCliInProcess(['webhook', 'create', '--org', organization.id, '--url', 'http://127.0.0.1:8000/hooks'], gatewayEnv(gateway));
    expect(code).toBe(1);
    expect(json.error).toBe(
      'Webhook URLs may not point at loopback, private or link-local addresses: to receive events on this machine, ' +
        `run gateway listen --org ${organization.id} --forward-to http://127.0.0.1:8000/hooks (or start a development gateway with WEBHOOK_ALLOW_PRIVATE_URLS=true)`,
    );
    expect(await gateway.ctx.db.webhook.count({ where: { organizationId: organization.id } })).toBe(0);
  });

  it('a bad argument still beats a missing token (nothing is sent)', async () => {
    const { json } = await runCliInProcess(['org', 'update', 'x', '--min-amount', 'abc'], {});
    expect(json.error).toMatch(/^--min-amount must be a whole number/);
  });
});

describe('a gateway started from the same folder', () => {
  let folder: string;
  let organizationId: string;
  beforeAll(async () => {
    folder = await newFolder();
    organizationId = (await gateway.createOrganization({ name: 'Found by its folder' })).id;
    await writeFile(path.join(folder, 'admin-token'), `${gateway.adminToken}\n`, { mode: 0o600 });
  });

  it('is found through gateway.json and admin-token: no GATEWAY_URL, no GATEWAY_ADMIN_TOKEN', async () => {
    await announceGatewayInDataFolder({ embedded: true, dataDir: folder, url: gateway.url, log: quiet });
    expect(runningGatewayIn(folder)).toEqual({ url: gateway.url, file: path.join(folder, 'gateway.json') });
    const { code, json } = await runCliInProcess(['org', 'get', organizationId], { GATEWAY_DATA_DIR: folder });
    expect(code).toBe(0);
    expect(json).toMatchObject({ id: organizationId, name: 'Found by its folder' });
  });

  it('GATEWAY_URL and GATEWAY_ADMIN_TOKEN still come first', async () => {
    await announceGatewayInDataFolder({ embedded: true, dataDir: folder, url: gateway.url, log: quiet });
    const elsewhere = await runCliInProcess(['org', 'get', organizationId], { GATEWAY_DATA_DIR: folder, GATEWAY_URL: 'http://127.0.0.1:9' });
    expect(elsewhere.json.error).toMatch(/^cannot reach the gateway at http:\/\/127\.0\.0\.1:9:/);
    const otherToken = await runCliInProcess(['org', 'get', organizationId], { GATEWAY_DATA_DIR: folder, GATEWAY_ADMIN_TOKEN: 'gw_op_not_a_real_token' });
    expect(otherToken.json).toEqual({ error: 'Invalid API key' });
  });

  it('says where the address came from when the gateway there is down', async () => {
    const down = await newFolder();
    await announceGatewayInDataFolder({ embedded: true, dataDir: down, url: 'http://127.0.0.1:9', log: quiet });
    const { json } = await runCliInProcess(['org', 'list'], { GATEWAY_DATA_DIR: down, GATEWAY_ADMIN_TOKEN: gateway.adminToken });
    expect(json.error).toContain(
      `cannot reach the gateway at http://127.0.0.1:9 (the address in ${path.join(down, 'gateway.json')}): is it running? Set GATEWAY_URL`,
    );
  });

  it('is not looked for when the process that wrote gateway.json is gone, nor in a file that is not one', async () => {
    const stale = await newFolder();
    // This very pid, but another boot: the machine restarted since that gateway wrote it.
    await writeFile(path.join(stale, 'gateway.json'), JSON.stringify({ url: gateway.url, ...lockOwner(), bootId: 'another boot' }));
    expect(runningGatewayIn(stale)).toBeNull();
    // Falls back to the default address, never the stale one (whatever answers there, not our gateway with our token).
    const { code, json } = await runCliInProcess(['org', 'get', organizationId], { GATEWAY_DATA_DIR: stale, GATEWAY_ADMIN_TOKEN: gateway.adminToken });
    expect(code).toBe(1);
    expect(json.error).not.toContain(stale);
    for (const garbage of ['', '{', '{"url": "not a url", "pid": 1}', '{"url": "http://127.0.0.1:1"}']) {
      await writeFile(path.join(stale, 'gateway.json'), garbage);
      expect(runningGatewayIn(stale), garbage).toBeNull();
    }
  });

  it('writes no gateway.json for a gateway on PostgreSQL (several may start from one folder)', async () => {
    const shared = await newFolder();
    await announceGatewayInDataFolder({ embedded: false, dataDir: shared, url: gateway.url, log: quiet });
    expect(runningGatewayIn(shared)).toBeNull();
  });
});
