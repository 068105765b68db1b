import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runFolio } from '../test/cli-runner.ts';

// Mistyped command lines fail before any database is opened, so these runs need none.
const folio = (...argv: string[]) => runFolio({ FOLIO_DATA_DIR: '/proc/folio-cli-usage' }, argv);

describe('folio usage errors suggest what was meant', () => {
  test('a mistyped command or subcommand names the close match', async () => {
    const cases: [string[], RegExp][] = [
      [
        ['projcts', 'list'],
        /^folio: unknown command "projcts" \(did you mean "projects"\?\); see `folio --help`\n$/,
      ],
      [['projects', 'lst'], /unknown command "projects lst" \(did you mean "projects list"\?\)/],
      [['webhok', 'test', 'prj_x'], /did you mean "webhook"\?/],
      [['articles', 'previewlink', 'a1'], /did you mean "articles preview-link"\?/],
      [['exprot'], /did you mean "export"\?/],
    ];
    for (const [argv, expected] of cases) {
      const run = await folio(...argv);
      assert.equal(run.code, 2, argv.join(' '));
      assert.match(run.stderr, expected);
      assert.equal(run.stdout, '');
    }
  });

  test('a word far from every command suggests nothing', async () => {
    const run = await folio('frobnicate');
    assert.equal(run.code, 2);
    assert.equal(run.stderr, 'folio: unknown command "frobnicate"; see `folio --help`\n');
  });

  test('a mistyped option names the close match among the command’s own', async () => {
    const json = await folio('projects', 'list', '--jsn');
    assert.equal(json.code, 2);
    assert.match(json.stderr, /^folio projects list: Unknown option '--jsn'; did you mean --json\?\n/);
    const publish = await folio('articles', 'schedule', 'a1', '--publish_at', 'now');
    assert.equal(publish.code, 2);
    assert.match(publish.stderr, /Unknown option '--publish_at'; did you mean --publish-at\?/);
    const far = await folio('projects', 'create', '--name', 'x', '--colour', 'red');
    assert.equal(far.code, 2);
    assert.match(far.stderr, /Unknown option '--colour'\n/);
  });

  test('with --json the suggestion is in the JSON error too', async () => {
    const run = await folio('projcts', 'list', '--json');
    assert.equal(run.code, 2);
    assert.equal(run.json().error.message, 'unknown command "projcts" (did you mean "projects"?)');
  });
});

describe('folio help COMMAND', () => {
  test('shows that command’s help, as COMMAND --help does', async () => {
    const help = await folio('help', 'projects', 'create');
    assert.equal(help.code, 0);
    assert.equal(help.stdout, (await folio('projects', 'create', '--help')).stdout);
    assert.match(help.stdout, /^Usage: folio projects create --name NAME/);
    const top = await folio('help', '--json');
    assert.equal(top.code, 0, 'help with only options is the command list');
    assert.match(top.stdout, /\nCommands:\n/);
    const single = await folio('help', 'export');
    assert.equal(single.code, 0);
    assert.match(single.stdout, /^Usage: folio export/);
  });

  test('of a group lists its commands only, and exits 0', async () => {
    const group = await folio('help', 'webhook');
    assert.equal(group.code, 0);
    assert.match(group.stdout, /\n {2}webhook set\s/);
    assert.doesNotMatch(group.stdout, /\n {2}projects create\s/);
  });

  test('of an unknown command is a usage error that names the close match', async () => {
    const run = await folio('help', 'projets');
    assert.equal(run.code, 2);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /unknown command "projets" \(did you mean "projects"\?\)/);
  });
});

describe('folio and the two ways commands name a project', () => {
  test('--project where PROJECT is an argument says to give it as the argument', async () => {
    const run = await folio('keys', 'list', '--project', 'prj_x');
    assert.equal(run.code, 2);
    assert.match(
      run.stderr,
      /^folio keys list: Unknown option '--project'; this command takes the project as its argument: folio keys list PROJECT\n/,
    );
  });

  test('a project id as an argument where --project is the option says to use --project', async () => {
    const run = await folio('articles', 'list', 'prj_x');
    assert.equal(run.code, 2);
    assert.match(
      run.stderr,
      /^folio articles list: unexpected argument "prj_x"; give the project as --project prj_x\n/,
    );
    const other = await folio('import', 'in.ndjson', 'extra');
    assert.match(other.stderr, /^folio import: unexpected argument "extra"\n/);
  });
});

describe('folio and settings given as options', () => {
  test('an option naming a setting says it is an environment variable', async () => {
    const port = await folio('start', '--port', '9702');
    assert.equal(port.code, 2);
    assert.match(
      port.stderr,
      /^folio start: Unknown option '--port'; settings are environment variables \(see the README's Configuration\): PORT=… folio start\n/,
    );
    const database = await folio('projects', 'list', '--database-url=postgres://db/folio');
    assert.equal(database.code, 2);
    assert.match(database.stderr, /: DATABASE_URL=… folio projects list\n/);
    assert.match((await folio('migrate', '--data-dir', 'x')).stderr, /: FOLIO_DATA_DIR=… folio migrate\n/);
  });
});

describe('folio import -', () => {
  test('says import reads a file, not standard input, and how to give it one', async () => {
    const run = await folio('import', '-');
    assert.equal(run.code, 2);
    assert.match(
      run.stderr,
      /^folio import: FILE must be a file, not standard input \(-\): import reads it twice, to check every line and then to write; save the input to a file first\n/,
    );
  });
});

describe('folio without a command', () => {
  test('is a usage error: the command list goes to stderr, as every usage error does', async () => {
    for (const argv of [[], ['projects']]) {
      const run = await folio(...argv);
      assert.equal(run.code, 2, argv.join(' '));
      assert.equal(run.stdout, '', 'nothing on stdout, where a result would be');
      assert.match(run.stderr, /\nCommands:\n/);
    }
    const asked = await folio('projects', '--help');
    assert.equal(asked.code, 0);
    assert.match(asked.stdout, /\n {2}projects create\s/, 'help asked for goes to stdout');
  });
});
