import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { MIGRATIONS } from '../db/migrate.ts';
import { identifyContentKey } from '../services/content-keys.ts';
import { countRows } from '../test/assertions.ts';
import { cliEnv, runFolio } from '../test/cli-runner.ts';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../test/databases.ts';
import { startReceiver } from '../test/receiver.ts';
import { createDispatcher } from '../webhooks/dispatcher.ts';
import { createSecretBox } from '../webhooks/secret-box.ts';
import { COMMANDS } from './run.ts';

const PREVIEW_URL = 'https://www.example.com/api/preview?slug={slug}&token={token}';

for (const dialect of DIALECTS) {
  describe(`folio commands [${dialect}]`, () => {
    let database: TestDatabase;
    let env: Record<string, string>;
    beforeEach(async () => {
      database = await createTestDatabase(dialect);
      env = cliEnv(database);
    });
    afterEach(() => database.close());

    const folio = (...argv: string[]) => runFolio(env, argv);
    const createProject = async (...extra: string[]) => {
      const run = await folio('projects', 'create', '--name', 'Blog', '--json', ...extra);
      assert.equal(run.code, 0, run.stderr);
      return run.json<{ id: string }>().id;
    };

    test('migrate applies every migration once, on an empty database, and then has nothing to do', async () => {
      const first = await folio('migrate', '--json');
      assert.equal(first.code, 0, first.stderr);
      // Every one, in order (db/migrate.test.ts holds the list itself).
      assert.deepEqual(first.json().applied, Object.keys(MIGRATIONS));
      assert.equal(first.json().database, dialect);
      const again = await folio('migrate');
      assert.equal(again.code, 0);
      assert.match(again.stdout, /up to date/);
    });

    test('projects create prints the project (normalized as the API does) and list shows it', async () => {
      const created = await folio(
        'projects',
        'create',
        '--name',
        'My blog',
        '--website-url',
        'https://www.example.com/',
        '--articles-path',
        'blog/',
        '--json',
      );
      assert.equal(created.code, 0, created.stderr);
      const project = created.json();
      assert.match(project.id, /^prj_/);
      assert.equal(project.name, 'My blog');
      assert.equal(project.websiteUrl, 'https://www.example.com');
      assert.equal(project.articlesPath, '/blog');
      assert.equal(created.stderr, '');

      const listed = await folio('projects', 'list', '--json');
      assert.deepEqual(listed.json(), [project]);
      const human = await folio('projects', 'list');
      assert.match(
        human.stdout,
        new RegExp(`${project.id}\\s+My blog\\s+https://www\\.example\\.com\\s+/blog`),
      );
    });

    test('projects list with none names the database it looked in, for a wrong FOLIO_DATA_DIR', async () => {
      const run = await folio('projects', 'list');
      assert.equal(run.code, 0, run.stderr);
      const where =
        dialect === 'sqlite'
          ? `${database.location.dataDir}/folio.sqlite`
          : 'postgres://postgres@127.0.0.1:5432/';
      assert.ok(run.stdout.startsWith(`No projects yet in ${where}`), run.stdout);
      assert.match(run.stdout, /not the server's\? Set FOLIO_DATA_DIR or DATABASE_URL as it has them\./);
      assert.match(run.stdout, /\nCreate one with: folio projects create --name "My site"\n$/);
    });

    test('projects create refuses what the API refuses, names the flag, and writes nothing', async () => {
      const cases: [string[], string, string][] = [
        [['--website-url', 'ftp://example.com'], '--website-url', '/websiteUrl'],
        [['--website-url', 'https://example.com/path'], '--website-url', '/websiteUrl'],
        [['--articles-path', '/a b'], '--articles-path', '/articlesPath'],
        [['--name', ''], '--name', '/name'],
      ];
      for (const [extra, flag, path] of cases) {
        const run = await folio('projects', 'create', '--name', 'Blog', ...extra, '--json');
        assert.equal(run.code, 1, `${extra.join(' ')}: ${run.stderr}`);
        assert.ok(run.stderr.startsWith(`folio projects create: ${flag} `), run.stderr);
        assert.doesNotMatch(
          run.stderr,
          /websiteUrl|articlesPath/,
          "the user typed flags, not the API's fields",
        );
        assert.equal(run.stderr.trim().split('\n').length, 1, 'one line on stderr');
        assert.equal(run.json().error.code, 'invalid_body');
        assert.equal(run.json().error.message, run.stderr.slice('folio projects create: '.length).trim());
        assert.equal(run.json().error.details[0].path, path, 'details keep the API path for scripts');
      }
      assert.equal((await countRows(database.db)).projects, 0);

      const projectId = await createProject();
      const key = await folio('keys', 'create', projectId, '--name', '');
      assert.equal(key.code, 1);
      assert.match(key.stderr, /^folio keys create: --name must /);
      env.FOLIO_WEBHOOK_ALLOW_PRIVATE = 'true';
      const url = await folio('webhook', 'set', projectId, `https://example.com/${'a'.repeat(2048)}`);
      assert.equal(url.code, 1);
      assert.match(url.stderr, /^folio webhook set: URL must NOT have more than 2048 characters/);
    });

    test('usage errors exit 2 with one line naming the problem and the usage', async () => {
      const missing = await folio('projects', 'create');
      assert.equal(missing.code, 2);
      assert.match(
        missing.stderr,
        /^folio projects create: --name is required\nUsage: folio projects create/,
      );
      const unknown = await folio('projects', 'create', '--name', 'x', '--colour', 'red');
      assert.equal(unknown.code, 2);
      assert.match(unknown.stderr, /Unknown option '--colour'/);
      const noProject = await folio('keys', 'list');
      assert.equal(noProject.code, 2);
      assert.match(noProject.stderr, /missing PROJECT/);
      const extra = await folio('keys', 'list', 'a', 'b');
      assert.equal(extra.code, 2);
      assert.match(extra.stderr, /unexpected argument "b"/);
      const command = await folio('projects', 'frobnicate');
      assert.equal(command.code, 2);
      assert.match(command.stderr, /unknown command "projects frobnicate"/);
      const page = await folio('webhook', 'deliveries', 'prj_x', '--limit', '0');
      assert.equal(page.code, 2);
      assert.match(page.stderr, /--limit must be a whole number/);
    });

    test('a database that cannot be opened: one line, the JSON error with --json, no crash', async () => {
      const broken: Record<string, string> =
        dialect === 'sqlite'
          ? { FOLIO_DATA_DIR: '/proc/folio-cli' }
          : { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/folio' };
      const run = await runFolio(broken, ['projects', 'list', '--json']);
      assert.equal(run.code, dialect === 'sqlite' ? 2 : 1, run.stderr);
      assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
      assert.match(run.stderr, dialect === 'sqlite' ? /FOLIO_DATA_DIR/ : /DATABASE_URL/);
      assert.equal(run.json().success, false);
    });

    test('with --json a usage or configuration error is JSON on stdout too', async () => {
      const usage = await folio('projects', 'frobnicate', '--json');
      assert.equal(usage.code, 2);
      const config = await runFolio({ ...env, PORT: 'abc' }, ['projects', 'list', '--json']);
      assert.equal(config.code, 2);
      assert.deepEqual(
        [usage, config].map((run) => [run.json().success, run.json().error.code]),
        [
          [false, 'invalid_usage'],
          [false, 'invalid_config'],
        ],
      );
    });

    test('a bad configuration exits 2 naming each variable, before touching the database', async () => {
      const run = await runFolio({ ...env, PORT: 'abc', FOLIO_WEBHOOK_TIMEOUT: 'soon' }, [
        'projects',
        'list',
      ]);
      assert.equal(run.code, 2);
      assert.match(run.stderr, /PORT="abc" is not valid/);
      assert.match(run.stderr, /FOLIO_WEBHOOK_TIMEOUT="soon" is not valid/);
      assert.equal(run.stdout, '');
    });

    test('keys create shows a working key once; list shows no secret; revoke stops it', async () => {
      const projectId = await createProject();
      const created = await folio('keys', 'create', projectId, '--name', 'website', '--json');
      assert.equal(created.code, 0, created.stderr);
      const key = created.json();
      assert.match(key.key, /^folio_ck_/);
      assert.equal(key.name, 'website');
      const deps = { db: database.db, now: Date.now };
      assert.equal((await identifyContentKey(deps, key.key, projectId)).project.id, projectId);

      const human = await folio('keys', 'create', projectId);
      assert.match(human.stdout, /will not be shown again:\n\n {2}folio_ck_\S+/);

      const listed = await folio('keys', 'list', projectId, '--json');
      assert.equal(listed.code, 0);
      assert.deepEqual(
        listed
          .json()
          .map((k: { name: string }) => k.name)
          .sort(),
        ['cli', 'website'],
      );
      assert.ok(!listed.stdout.includes(key.key), 'the list never shows a secret');
      assert.ok(!(await folio('keys', 'list', projectId)).stdout.includes(key.key));

      const revoked = await folio('keys', 'revoke', projectId, key.id, '--json');
      assert.equal(revoked.code, 0, revoked.stderr);
      assert.deepEqual(revoked.json(), { id: key.id, revoked: true });
      await assert.rejects(identifyContentKey(deps, key.key, projectId), { code: 'unauthorized' });
      assert.equal((await folio('keys', 'list', projectId, '--json')).json().length, 1);

      const again = await folio('keys', 'revoke', projectId, key.id, '--json');
      assert.equal(again.code, 1);
      assert.equal(again.json().error.code, 'not_found');
      assert.equal(again.stderr, `folio keys revoke: Key "${key.id}" was not found.\n`);
    });

    test('keys revoke given the key itself, not its id, says which to give and does not echo it', async () => {
      const projectId = await createProject();
      const key = (await folio('keys', 'create', projectId, '--json')).json();
      const run = await folio('keys', 'revoke', projectId, key.key, '--json');
      assert.equal(run.code, 1);
      assert.equal(run.json().error.code, 'not_found');
      assert.equal(
        run.stderr,
        `folio keys revoke: "${key.key.slice(0, 15)}…" is a key, not a key id: give the id (key_…) that \`folio keys list ${projectId}\` shows beside its prefix.\n`,
      );
      assert.ok(!`${run.stdout}${run.stderr}`.includes(key.key), 'the secret is not printed back');
      assert.equal((await folio('keys', 'list', projectId, '--json')).json().length, 1, 'nothing revoked');
    });

    test('keys create --kind preview makes a folio_pk_ key that reads the preview; list shows kinds', async () => {
      const projectId = await createProject();
      const preview = await folio(
        'keys',
        'create',
        projectId,
        '--name',
        'staging',
        '--kind',
        'preview',
        '--json',
      );
      assert.equal(preview.code, 0, preview.stderr);
      assert.match(preview.json().key, /^folio_pk_/);
      assert.equal(preview.json().kind, 'preview');
      const deps = { db: database.db, now: Date.now };
      assert.equal((await identifyContentKey(deps, preview.json().key, projectId)).kind, 'preview');
      const content = await folio('keys', 'create', projectId, '--name', 'site');
      assert.match(content.stdout, /^Created content key key_\S+ \("site"\)\. .*\n\n {2}folio_ck_\S+\n/);

      const listed = await folio('keys', 'list', projectId);
      assert.match(listed.stdout, /^ID\s+KIND\s+NAME\s+PREFIX\s+CREATED\s+LAST USED\n/);
      assert.match(listed.stdout, /\nkey_\S+\s+preview\s+staging\s+folio_pk_\S+…/);
      assert.match(listed.stdout, /\nkey_\S+\s+content\s+site\s+folio_ck_\S+…/);
      assert.deepEqual(
        (await folio('keys', 'list', projectId, '--json'))
          .json()
          .map((key: { name: string; kind: string }) => [key.name, key.kind])
          .sort(),
        [
          ['site', 'content'],
          ['staging', 'preview'],
        ],
      );

      const before = await countRows(database.db);
      const wrong = await folio('keys', 'create', projectId, '--kind', 'admin', '--json');
      assert.equal(wrong.code, 1);
      assert.equal(wrong.stderr, 'folio keys create: --kind must be content or preview, not "admin".\n');
      assert.deepEqual(wrong.json().error.details, [
        { path: '/kind', message: 'must be content or preview' },
      ]);
      assert.deepEqual(await countRows(database.db), before, 'no key was made');
    });

    test('projects create and update take --preview-url; a bad one is refused naming the flag', async () => {
      const created = await folio('projects', 'create', '--name', 'Other', '--preview-url', PREVIEW_URL);
      assert.equal(created.code, 0, created.stderr);
      assert.match(
        created.stdout,
        /\n {2}preview URL: +https:\/\/www\.example\.com\/api\/preview\?slug=\{slug\}&token=\{token\}\n/,
      );
      const other = /^Created project (\S+)/.exec(created.stdout)![1]!;

      const before = await database.db.selectFrom('projects').selectAll().orderBy('id').execute();
      for (const [argv, message] of [
        [
          ['projects', 'create', '--name', 'X', '--preview-url', 'https://example.com/preview'],
          '--preview-url must contain {token}',
        ],
        [
          ['projects', 'update', other, '--preview-url', 'ftp://example.com/?t={token}'],
          '--preview-url must use http or https',
        ],
        [
          ['projects', 'update', other, '--website-url', 'https://example.com/blog'],
          '--website-url must be an origin',
        ],
      ] as const) {
        const run = await folio(...argv, '--json');
        assert.equal(run.code, 1, run.stderr);
        assert.ok(run.stderr.startsWith(`folio ${argv[0]} ${argv[1]}: ${message}`), run.stderr);
        assert.doesNotMatch(run.stderr, /previewUrl|websiteUrl/);
        assert.equal(run.json().error.code, 'invalid_body');
      }
      assert.deepEqual(await database.db.selectFrom('projects').selectAll().orderBy('id').execute(), before);

      const renamed = await folio(
        'projects',
        'update',
        other,
        '--name',
        'Renamed',
        '--preview-url',
        'none',
        '--json',
      );
      assert.equal(renamed.code, 0, renamed.stderr);
      assert.deepEqual([renamed.json().name, renamed.json().previewUrl], ['Renamed', null]);
      assert.match((await folio('projects', 'list')).stdout, /\nprj_\S+\s+Renamed\s+-\s+\/\s+\S+\s+-\n/);
      const nothing = await folio('projects', 'update', other);
      assert.equal(nothing.code, 2);
      assert.match(
        nothing.stderr,
        /nothing to change: give --name, --website-url, --articles-path or --preview-url/,
      );
      const unknown = await folio('projects', 'update', 'prj_nope', '--name', 'x', '--json');
      assert.equal(unknown.code, 1);
      assert.equal(unknown.json().error.code, 'not_found');
    });

    test('an unknown project is exit 1 with not_found, in JSON and on stderr', async () => {
      for (const argv of [
        ['keys', 'create', 'prj_nope'],
        ['keys', 'list', 'prj_nope'],
        ['webhook', 'reveal', 'prj_nope'],
        ['webhook', 'deliveries', 'prj_nope'],
        ['export', '--project', 'prj_nope'],
      ]) {
        const run = await folio(...argv, '--json');
        assert.equal(run.code, 1, argv.join(' '));
        assert.equal(run.json().error.code, 'not_found', argv.join(' '));
        assert.match(run.stderr, /Project "prj_nope" was not found/);
      }
    });

    test('webhook set, reveal, test and deliveries: the test event reaches a receiver signed', async () => {
      const receiver = await startReceiver();
      try {
        const projectId = await createProject();
        const refused = await folio('webhook', 'set', projectId, receiver.url, '--json');
        assert.equal(refused.code, 1, 'a loopback URL is refused unless private addresses are allowed');
        assert.match(refused.stderr, /FOLIO_WEBHOOK_ALLOW_PRIVATE/);

        env.FOLIO_WEBHOOK_ALLOW_PRIVATE = 'true';
        const noUrl = await folio('webhook', 'test', projectId, '--json');
        assert.equal(noUrl.code, 1);
        assert.equal(noUrl.json().error.code, 'conflict');

        const set = await folio('webhook', 'set', projectId, receiver.url, '--json');
        assert.equal(set.code, 0, set.stderr);
        assert.equal(set.json().url, receiver.url);
        assert.equal(set.json().signed, false);

        const secret = (await folio('webhook', 'reveal', projectId, '--json')).json().secret;
        assert.match(secret, /^whsec_/);
        assert.equal((await folio('webhook', 'reveal', projectId)).stdout, `${secret}\n`);
        receiver.secrets = [secret];

        const queued = await folio('webhook', 'test', projectId, '--json');
        assert.equal(queued.code, 0, queued.stderr);
        const { deliveryId, webhookId } = queued.json();
        const pending = (await folio('webhook', 'deliveries', projectId, '--json')).json();
        assert.equal(pending.pagination.total, 1);
        assert.equal(pending.data[0].id, deliveryId);
        assert.equal(pending.data[0].status, 'pending');

        // What a running server's dispatcher does with it.
        const dispatcher = createDispatcher({
          db: database.db,
          lockRows: dialect === 'postgres',
          now: Date.now,
          retryScheduleMs: [1_000],
          timeoutMs: 2_000,
          allowPrivate: true,
          secretBox: createSecretBox(undefined),
          userAgent: 'Folio-Webhooks/test',
        });
        await dispatcher.runOnce();
        const [received] = await receiver.waitFor(1);
        assert.equal(received!.json.event, 'webhook.test');
        assert.equal(received!.headers['webhook-id'], webhookId);
        assert.deepEqual(received!.verified, [true]);

        const done = (await folio('webhook', 'deliveries', projectId, '--json')).json();
        assert.equal(done.data[0].status, 'succeeded');
        const human = await folio('webhook', 'deliveries', projectId);
        assert.match(human.stdout, new RegExp(`${deliveryId}\\s+webhook\\.test\\s+succeeded\\s+1\\s+204`));

        const removed = await folio('webhook', 'set', projectId, '--remove', '--json');
        assert.equal(removed.code, 0);
        assert.equal(removed.json().url, null);
        assert.equal((await folio('webhook', 'set', projectId)).code, 2, 'neither URL nor --remove');
      } finally {
        await receiver.close();
      }
    });

    test('--help of every command exits 0 with its usage; folio --help lists every command', async () => {
      for (const command of COMMANDS) {
        const run = await folio(...command.name.split(' '), '--help');
        assert.equal(run.code, 0, command.name);
        assert.ok(run.stdout.startsWith(`Usage: folio ${command.name}`), run.stdout);
        // start and worker print a log, not a result: --json is not theirs, and is refused.
        if (command.noJson) {
          assert.doesNotMatch(run.stdout, /--json/);
          assert.equal((await folio(...command.name.split(' '), '--json')).code, 2, command.name);
        } else {
          assert.match(run.stdout, /--json/);
        }
      }
      const top = await folio('--help');
      assert.equal(top.code, 0);
      for (const command of COMMANDS) assert.match(top.stdout, new RegExp(`\\n  ${command.name}\\s`));
      assert.equal((await folio()).code, 2, 'no command is a usage error');
    });
  });
}
