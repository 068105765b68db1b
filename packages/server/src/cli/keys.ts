import { type KeyKind, NewContentKeySchema } from '@folio/schema';
import { AppError } from '../errors.ts';
import { createContentKey, listContentKeys, revokeContentKey } from '../services/content-keys.ts';
import { type CommandSpec, EXIT_OK, table } from './context.ts';
import { createInputValidator, namingInputs } from './validate.ts';

const KINDS = ['content', 'preview'] as const;

const createCommand: CommandSpec = {
  name: 'keys create',
  summary: 'Create a content or preview key (shown once)',
  usage: 'folio keys create PROJECT [--name NAME] [--kind content|preview] [--json]',
  help: `Creates a key for the delivery API of PROJECT and prints it. This is the only time the key
is shown: only its hash is stored.

A content key (folio_ck_…, the default) reads what is published: give it to the site. A preview
key (folio_pk_…) reads every article as its draft when it has one, published or not, and its
answers are never cached: keep it on a preview deployment, never in a public site's pages.

Options:
  --name NAME      a label to tell keys apart (default: "cli")
  --kind KIND      content (default) or preview`,
  options: { name: { type: 'string' }, kind: { type: 'string' } },
  positionals: ['PROJECT'],
  async run(context, { values, positionals }) {
    const name = (values.name as string | undefined) ?? 'cli';
    const kind = keyKind(values.kind as string | undefined);
    const key = await namingInputs({ name: '--name' }, async () => {
      createInputValidator(context.config().baseUrl).check(NewContentKeySchema, { name, kind });
      return createContentKey(await context.deps(), positionals[0]!, name, kind);
    });
    context.print(
      key,
      () =>
        `Created ${key.kind} key ${key.id} ("${key.name}"). Copy it now, it will not be shown again:\n\n  ${key.key}\n`,
    );
    return EXIT_OK;
  },
};

function keyKind(given: string | undefined): KeyKind {
  if (given === undefined) return 'content';
  if ((KINDS as readonly string[]).includes(given)) return given as KeyKind;
  // The schema's own words for a union are three lines about each literal it did not match.
  const why = `must be ${KINDS.join(' or ')}`;
  throw new AppError('invalid_body', `--kind ${why}, not "${given}".`, [{ path: '/kind', message: why }]);
}

const listCommand: CommandSpec = {
  name: 'keys list',
  summary: 'List the working keys of a project',
  usage: 'folio keys list PROJECT [--json]',
  help: 'Lists the content and preview keys of PROJECT that are not revoked, without their secrets.',
  positionals: ['PROJECT'],
  async run(context, { positionals }) {
    const keys = await listContentKeys(await context.deps(), positionals[0]!);
    context.print(keys, () =>
      keys.length === 0
        ? 'No keys. Create one with: folio keys create PROJECT'
        : table(
            ['ID', 'KIND', 'NAME', 'PREFIX', 'CREATED', 'LAST USED'],
            keys.map((k) => [k.id, k.kind, k.name, `${k.prefix}…`, k.createdAt, k.lastUsedAt ?? 'never']),
          ),
    );
    return EXIT_OK;
  },
};

const revokeCommand: CommandSpec = {
  name: 'keys revoke',
  summary: 'Revoke a content or preview key',
  usage: 'folio keys revoke PROJECT KEY_ID [--json]',
  help: 'Revokes the key KEY_ID of PROJECT; it stops working on the next request.',
  positionals: ['PROJECT', 'KEY_ID'],
  async run(context, { positionals }) {
    const [projectId, keyId] = positionals as [string, string];
    // The list shows each key's prefix beside its id, so the key itself is a likely slip; a
    // secret is not printed back whole (stderr may end up in a log).
    if (keyId.startsWith('folio_')) {
      throw new AppError(
        'not_found',
        `"${keyId.slice(0, 15)}…" is a key, not a key id: give the id (key_…) that \`folio keys list ${projectId}\` shows beside its prefix.`,
      );
    }
    await revokeContentKey(await context.deps(), projectId, keyId);
    context.print({ id: keyId, revoked: true }, () => `Revoked key ${keyId}.`);
    return EXIT_OK;
  },
};

export const keyCommands = [createCommand, listCommand, revokeCommand];
