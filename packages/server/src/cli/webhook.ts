import { type Delivery, WebhookInputSchema } from '@folio/schema';
import { AppError } from '../errors.ts';
import type { ServiceDeps } from '../services/deps.ts';
import {
  getWebhook,
  listDeliveries,
  ROTATION_OVERLAP_MS,
  retryDelivery,
  revealWebhookSecret,
  rotateWebhookSecret,
  sendTestEvent,
  setWebhookUrl,
} from '../services/webhooks.ts';
import { type CommandSpec, EXIT_OK, table, UsageError, wholeNumber } from './context.ts';
import { createInputValidator, namingInputs } from './validate.ts';

const setCommand: CommandSpec = {
  name: 'webhook set',
  summary: "Set (or remove) a project's webhook URL",
  usage: 'folio webhook set PROJECT URL [--json]\n       folio webhook set PROJECT --remove [--json]',
  help: `Points PROJECT's webhook at URL (https: or http:). Unless FOLIO_WEBHOOK_ALLOW_PRIVATE=true, a
URL that resolves to a loopback, private or link-local address is refused.

Options:
  --remove   remove the webhook URL instead; no more deliveries are queued`,
  options: { remove: { type: 'boolean' } },
  positionals: ['PROJECT'],
  optionalPositionals: ['URL'],
  async run(context, { values, positionals }) {
    const [projectId, url] = positionals as [string, string | undefined];
    if ((values.remove === true) === (url !== undefined)) throw new UsageError('give either URL or --remove');
    const input = { url: url ?? null };
    // The service's own refusals are whole sentences about "the webhook URL"; only the schema's
    // need the argument's name.
    await namingInputs({ url: 'URL' }, async () =>
      createInputValidator(context.config().baseUrl).check(WebhookInputSchema, input),
    );
    const webhook = await setWebhookUrl(await context.deps(), projectId, input.url);
    context.print(webhook, () =>
      webhook.url === null
        ? 'Removed the webhook URL.'
        : `Webhook URL set to ${webhook.url} (${webhook.signed ? 'signed' : 'not signed yet: run `folio webhook reveal` to sign deliveries'}).`,
    );
    return EXIT_OK;
  },
};

const showCommand: CommandSpec = {
  name: 'webhook show',
  summary: "Show a project's webhook URL and whether it is signed and enabled",
  usage: 'folio webhook show PROJECT [--json]',
  help: `Shows PROJECT's webhook URL, whether deliveries are signed, and whether it is enabled (a
receiver that answers 410 Gone disables it until the URL is set again). With --json: the
webhook object as the management API answers it.`,
  positionals: ['PROJECT'],
  async run(context, { positionals }) {
    const projectId = positionals[0]!;
    const webhook = await getWebhook(await context.deps(), projectId);
    context.print(webhook, () => {
      if (webhook.url === null) return `No webhook URL. Set one with: folio webhook set ${projectId} URL`;
      return [
        `Webhook URL: ${webhook.url}`,
        webhook.enabled
          ? '  enabled'
          : `  disabled (${webhook.disabledReason}): set the URL again to enable it, with \`folio webhook set ${projectId} URL\``,
        webhook.signed
          ? `  signed${webhook.secretRotatedAt ? ` (secret rotated ${webhook.secretRotatedAt})` : ''}`
          : `  not signed yet: run \`folio webhook reveal ${projectId}\` to sign deliveries`,
      ].join('\n');
    });
    return EXIT_OK;
  },
};

const revealCommand: CommandSpec = {
  name: 'webhook reveal',
  summary: 'Show the webhook signing secret',
  usage: 'folio webhook reveal PROJECT [--json]',
  help: `Prints PROJECT's webhook signing secret (whsec_…), creating it on first use. From the first
reveal on, every delivery is signed; later reveals print the same secret.`,
  positionals: ['PROJECT'],
  async run(context, { positionals }) {
    const secret = await revealWebhookSecret(await context.deps(), positionals[0]!);
    context.print({ secret }, () => secret);
    return EXIT_OK;
  },
};

// How long a rotated-out secret keeps signing, in the words the help and the output use.
const OVERLAP_HOURS = ROTATION_OVERLAP_MS / 3_600_000;

const rotateCommand: CommandSpec = {
  name: 'webhook rotate',
  summary: 'Replace the webhook signing secret',
  usage: 'folio webhook rotate PROJECT [--json]',
  help: `Replaces PROJECT's webhook signing secret with a new one and prints it (whsec_…). For the
next ${OVERLAP_HOURS} hours every delivery carries signatures from both the old and the new secret,
so the receiver can switch to the new one without missing a delivery.`,
  positionals: ['PROJECT'],
  async run(context, { positionals }) {
    const deps = await context.deps();
    // A secret never revealed signed nothing, so none goes on signing beside the new one.
    const { signed } = await getWebhook(deps, positionals[0]!);
    const secret = await rotateWebhookSecret(deps, positionals[0]!);
    context.print({ secret }, () =>
      signed
        ? `Rotated the signing secret. Give the receiver the new one within ${OVERLAP_HOURS} hours; until then deliveries are signed with the old and the new secret:\n\n  ${secret}\n`
        : `Made a new signing secret; deliveries are signed with it from now on:\n\n  ${secret}\n`,
    );
    return EXIT_OK;
  },
};

const testCommand: CommandSpec = {
  name: 'webhook test',
  summary: 'Queue a webhook.test event',
  usage: 'folio webhook test PROJECT [--json]',
  help: `Queues a webhook.test event for PROJECT's webhook URL. A running server (or \`folio worker\`)
sends it within a second; follow it with \`folio webhook deliveries PROJECT\`.`,
  positionals: ['PROJECT'],
  async run(context, { positionals }) {
    const projectId = positionals[0]!;
    const deps = await context.deps();
    const queued = await sendTestEvent(deps, projectId).catch(namingHowToSetUrl(deps, projectId));
    context.print(
      queued,
      () =>
        `Queued test event ${queued.webhookId} as delivery ${queued.deliveryId}; a running server or \`folio worker\` sends it.`,
    );
    return EXIT_OK;
  },
};

const deliveriesCommand: CommandSpec = {
  name: 'webhook deliveries',
  summary: 'Show the webhook delivery log',
  usage: 'folio webhook deliveries PROJECT [--page N] [--limit N] [--json]',
  help: `Shows PROJECT's webhook deliveries, newest first (with --json: { data, pagination } as the
management API answers).

Options:
  --page N    page number (default 1)
  --limit N   deliveries per page, at most 100 (default 20)`,
  options: { page: { type: 'string' }, limit: { type: 'string' } },
  positionals: ['PROJECT'],
  async run(context, { values, positionals }) {
    const page = wholeNumber('--page', values.page, 1);
    const limit = wholeNumber('--limit', values.limit, 20);
    const projectId = positionals[0]!;
    const result = await listDeliveries(await context.deps(), projectId, { page, limit });
    const now = Date.now();
    context.print(result, () => {
      if (result.pagination.total === 0) {
        return `No deliveries yet. Once a webhook URL is set (folio webhook set ${projectId} URL), \`folio webhook test ${projectId}\` sends one to it.`;
      }
      const rows = result.data.map((d) => [
        d.id,
        d.event,
        d.status,
        String(d.attempts),
        d.lastStatusCode === null ? '-' : String(d.lastStatusCode),
        nextAttempt(d, now),
        d.createdAt,
        d.lastError ?? '',
      ]);
      const { page: at, totalPages, total } = result.pagination;
      return `${table(['ID', 'EVENT', 'STATUS', 'ATTEMPTS', 'LAST CODE', 'NEXT ATTEMPT', 'CREATED', 'LAST ERROR'], rows)}\n(page ${at} of ${totalPages}, ${total} in all)`;
    });
    return EXIT_OK;
  },
};

const retryCommand: CommandSpec = {
  name: 'webhook retry',
  summary: 'Send a webhook delivery again',
  usage: 'folio webhook retry PROJECT DELIVERY_ID [--json]',
  help: `Queues the delivery DELIVERY_ID of PROJECT to be sent again at once, whatever its state (a
failed one too); its attempts keep counting. A running server (or \`folio worker\`) sends it
within a second; the ids are in \`folio webhook deliveries PROJECT\`.`,
  positionals: ['PROJECT', 'DELIVERY_ID'],
  async run(context, { positionals }) {
    const [projectId, deliveryId] = positionals as [string, string];
    const deps = await context.deps();
    await retryDelivery(deps, projectId, deliveryId).catch(namingHowToSetUrl(deps, projectId));
    context.print(
      { id: deliveryId, status: 'pending' },
      () => `Queued delivery ${deliveryId} to be sent again; a running server or \`folio worker\` sends it.`,
    );
    return EXIT_OK;
  },
};

/** When a delivery is tried next, in the dashboard's words (pages/delivery-log.ts). */
function nextAttempt(delivery: Delivery, now: number): string {
  if (delivery.status === 'failed') return 'none (webhook retry sends it again)';
  if (delivery.status !== 'pending' || !delivery.nextAttemptAt) return '-';
  return Date.parse(delivery.nextAttemptAt) <= now ? 'due now' : delivery.nextAttemptAt;
}

/** A catch for the service's "no webhook URL" conflict that says the command setting one. */
function namingHowToSetUrl(deps: ServiceDeps, projectId: string) {
  return async (error: unknown): Promise<never> => {
    // The other conflict, a disabled webhook, names its own way out.
    if (!(error instanceof AppError) || error.code !== 'conflict') throw error;
    if ((await getWebhook(deps, projectId)).url !== null) throw error;
    throw new AppError(
      'conflict',
      `Project ${projectId} has no webhook URL, so there is nothing to send to. Set one with: folio webhook set ${projectId} https://www.example.com/webhooks/folio`,
      error.details,
    );
  };
}

export const webhookCommands = [
  setCommand,
  showCommand,
  revealCommand,
  rotateCommand,
  testCommand,
  deliveriesCommand,
  retryCommand,
];
