import { NewContentKeySchema } from '@folio/schema';
import { createContentKey, listContentKeys, revokeContentKey } from '../services/content-keys.ts';
import { type CommandSpec, EXIT_OK, table } from './context.ts';
import { createInputValidator, namingInputs } from './validate.ts';

const createCommand: CommandSpec = {
  name: 'keys create',
  summary: 'Create a content key (shown once)',
  usage: 'folio keys create PROJECT [--name NAME] [--json]',
  help: `Creates a content key for the delivery API of PROJECT and prints it. This is the only time
the key is shown: only its hash is stored.

Options:
  --name NAME   a label to tell keys apart (default: "cli")`,
  options: { name: { type: 'string' } },
  positionals: ['PROJECT'],
  async run(context, { values, positionals }) {
    const name = (values.name as string | undefined) ?? 'cli';
    const key = await namingInputs({ name: '--name' }, async () => {
      createInputValidator(context.config().baseUrl).check(NewContentKeySchema, { name });
      return createContentKey(await context.deps(), positionals[0]!, name);
    });
    context.print(
      key,
      () =>
        `Created content key ${key.id} ("${key.name}"). Copy it now, it will not be shown again:\n\n  ${key.key}\n`,
    );
    return EXIT_OK;
  },
};

const listCommand: CommandSpec = {
  name: 'keys list',
  summary: 'List the working content keys of a project',
  usage: 'folio keys list PROJECT [--json]',
  help: 'Lists the content keys of PROJECT that are not revoked, without their secrets.',
  positionals: ['PROJECT'],
  async run(context, { positionals }) {
    const keys = await listContentKeys(await context.deps(), positionals[0]!);
    context.print(keys, () =>
      keys.length === 0
        ? 'No content keys. Create one with: folio keys create PROJECT'
        : table(
            ['ID', 'NAME', 'PREFIX', 'CREATED', 'LAST USED'],
            keys.map((k) => [k.id, k.name, `${k.prefix}…`, k.createdAt, k.lastUsedAt ?? 'never']),
          ),
    );
    return EXIT_OK;
  },
};

const revokeCommand: CommandSpec = {
  name: 'keys revoke',
  summary: 'Revoke a content key',
  usage: 'folio keys revoke PROJECT KEY_ID [--json]',
  help: 'Revokes the key KEY_ID of PROJECT; it stops working on the next request.',
  positionals: ['PROJECT', 'KEY_ID'],
  async run(context, { positionals }) {
    const [projectId, keyId] = positionals as [string, string];
    await revokeContentKey(await context.deps(), projectId, keyId);
    context.print({ id: keyId, revoked: true }, () => `Revoked content key ${keyId}.`);
    return EXIT_OK;
  },
};

export const keyCommands = [createCommand, listCommand, revokeCommand];
