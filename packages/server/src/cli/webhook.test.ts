import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { cliEnv, runFolio } from '../test/cli-runner.ts';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../test/databases.ts';
import { type Receiver, startReceiver } from '../test/receiver.ts';
import { createDispatcher } from '../webhooks/dispatcher.ts';
import { createSecretBox } from '../webhooks/secret-box.ts';

for (const dialect of DIALECTS) {
  describe(`folio webhook rotate and retry [${dialect}]`, () => {
    let database: TestDatabase;
    let env: Record<string, string>;
    let receiver: Receiver;
    let projectId: string;
    beforeEach(async () => {
      database = await createTestDatabase(dialect);
      env = cliEnv(database, { FOLIO_WEBHOOK_ALLOW_PRIVATE: 'true' });
      receiver = await startReceiver();
      projectId = (await folio('projects', 'create', '--name', 'Blog', '--json')).json().id;
      assert.equal((await folio('webhook', 'set', projectId, receiver.url)).code, 0);
    });
    afterEach(async () => {
      await receiver.close();
      await database.close();
    });

    const folio = (...argv: string[]) => runFolio(env, argv);
    // What a running server's dispatcher does: send what is due now; retry a failure in a minute.
    const dispatch = () =>
      createDispatcher({
        db: database.db,
        lockRows: dialect === 'postgres',
        now: Date.now,
        retryScheduleMs: [60_000, 60_000],
        timeoutMs: 2_000,
        allowPrivate: true,
        secretBox: createSecretBox(undefined),
        userAgent: 'Folio-Webhooks/test',
      }).runOnce();
    const deliveries = async () => (await folio('webhook', 'deliveries', projectId, '--json')).json().data;

    test('show prints the webhook as the API answers it, and says what to do next', async () => {
      const shown = await folio('webhook', 'show', projectId, '--json');
      assert.equal(shown.code, 0, shown.stderr);
      assert.deepEqual(shown.json(), {
        url: receiver.url,
        signed: false,
        enabled: true,
        disabledReason: null,
        secretRotatedAt: null,
      });
      const unsigned = await folio('webhook', 'show', projectId);
      assert.equal(
        unsigned.stdout,
        `Webhook URL: ${receiver.url}\n  enabled\n  not signed yet: run \`folio webhook reveal ${projectId}\` to sign deliveries\n`,
      );
      await folio('webhook', 'reveal', projectId);
      assert.match((await folio('webhook', 'show', projectId)).stdout, /\n {2}signed\n$/);
      receiver.replies = [{ status: 410 }];
      await folio('webhook', 'test', projectId);
      await dispatch();
      await receiver.waitFor(1);
      const gone = await folio('webhook', 'show', projectId);
      assert.match(
        gone.stdout,
        new RegExp(
          `\n {2}disabled \\(.+\\): set the URL again to enable it, with \`folio webhook set ${projectId} URL\`\n`,
        ),
      );
      assert.equal((await folio('webhook', 'show', projectId, '--json')).json().enabled, false);
      await folio('webhook', 'set', projectId, '--remove');
      assert.equal(
        (await folio('webhook', 'show', projectId)).stdout,
        `No webhook URL. Set one with: folio webhook set ${projectId} URL\n`,
      );
      const unknown = await folio('webhook', 'show', 'prj_nope');
      assert.equal(unknown.code, 1);
      assert.equal(unknown.stderr, 'folio webhook show: Project "prj_nope" was not found.\n');
    });

    test('without a URL, test and the empty log say the command that sets one', async () => {
      const bare = (await folio('projects', 'create', '--name', 'Bare', '--json')).json().id;
      const empty = await folio('webhook', 'deliveries', bare);
      assert.equal(empty.code, 0);
      assert.equal(
        empty.stdout,
        `No deliveries yet. Once a webhook URL is set (folio webhook set ${bare} URL), \`folio webhook test ${bare}\` sends one to it.\n`,
      );
      const test = await folio('webhook', 'test', bare, '--json');
      assert.equal(test.code, 1);
      assert.equal(test.json().error.code, 'conflict');
      assert.equal(
        test.stderr,
        `folio webhook test: Project ${bare} has no webhook URL, so there is nothing to send to. Set one with: folio webhook set ${bare} https://www.example.com/webhooks/folio\n`,
      );

      const { deliveryId } = (await folio('webhook', 'test', projectId, '--json')).json();
      assert.equal((await folio('webhook', 'set', projectId, '--remove')).code, 0);
      const retry = await folio('webhook', 'retry', projectId, deliveryId);
      assert.equal(retry.code, 1);
      assert.match(retry.stderr, new RegExp(`Set one with: folio webhook set ${projectId} https://`));
    });

    test('rotate before any reveal does not promise an old secret that never signed', async () => {
      const first = await folio('webhook', 'rotate', projectId);
      assert.equal(first.code, 0, first.stderr);
      assert.match(
        first.stdout,
        /^Made a new signing secret; deliveries are signed with it from now on:\n\n {2}whsec_\S+\n/,
      );
    });

    test('rotate prints a new secret; for a day deliveries are signed with the old and the new one', async () => {
      const old = (await folio('webhook', 'reveal', projectId, '--json')).json().secret;
      const rotated = await folio('webhook', 'rotate', projectId, '--json');
      assert.equal(rotated.code, 0, rotated.stderr);
      const secret = rotated.json().secret;
      assert.match(secret, /^whsec_/);
      assert.notEqual(secret, old);
      assert.equal(
        (await folio('webhook', 'reveal', projectId)).stdout,
        `${secret}\n`,
        'reveal shows the new one',
      );

      receiver.secrets = [old, secret];
      assert.equal((await folio('webhook', 'test', projectId)).code, 0);
      await dispatch();
      const [received] = await receiver.waitFor(1);
      assert.deepEqual(received!.verified, [true, true], 'a receiver holding either secret accepts it');

      const human = await folio('webhook', 'rotate', projectId);
      assert.equal(human.code, 0);
      assert.match(
        human.stdout,
        /within 24 hours; until then deliveries are signed with the old and the new secret:\n\n {2}whsec_\S+\n/,
      );
      const unknown = await folio('webhook', 'rotate', 'prj_nope', '--json');
      assert.equal(unknown.code, 1);
      assert.equal(unknown.json().error.code, 'not_found');
    });

    test('the delivery log says when each delivery is tried next, as the dashboard does', async () => {
      receiver.replies = [{ status: 500 }];
      const { deliveryId: failed } = (await folio('webhook', 'test', projectId, '--json')).json();
      await dispatch();
      await receiver.waitFor(1);
      const { deliveryId: queued } = (await folio('webhook', 'test', projectId, '--json')).json();
      const { nextAttemptAt } = (await deliveries()).find((d: { id: string }) => d.id === failed);
      const human = (await folio('webhook', 'deliveries', projectId)).stdout;
      assert.match(
        human,
        /^ID\s+EVENT\s+STATUS\s+ATTEMPTS\s+LAST CODE\s+NEXT ATTEMPT\s+CREATED\s+LAST ERROR\n/,
      );
      assert.match(
        human,
        new RegExp(`\n${failed}\\s+webhook\\.test\\s+pending\\s+1\\s+500\\s+${nextAttemptAt}\\s`),
      );
      assert.match(human, new RegExp(`\n${queued}\\s+webhook\\.test\\s+pending\\s+0\\s+-\\s+due now\\s`));
    });

    test('retry sends a failed delivery again at once, with the same webhook-id, not at its next attempt', async () => {
      receiver.replies = [{ status: 500 }];
      const { deliveryId, webhookId } = (await folio('webhook', 'test', projectId, '--json')).json();
      await dispatch();
      await receiver.waitFor(1);
      const [failed] = await deliveries();
      assert.deepEqual([failed.status, failed.attempts, failed.lastStatusCode], ['pending', 1, 500]);
      assert.equal(await dispatch(), 0, 'the next attempt is a minute away');

      const retried = await folio('webhook', 'retry', projectId, deliveryId, '--json');
      assert.equal(retried.code, 0, retried.stderr);
      assert.deepEqual(retried.json(), { id: deliveryId, status: 'pending' });
      await dispatch();
      const [, again] = await receiver.waitFor(2);
      assert.equal(again!.headers['webhook-id'], webhookId);
      const [succeeded] = await deliveries();
      assert.deepEqual(
        [succeeded.status, succeeded.attempts, succeeded.lastStatusCode],
        ['succeeded', 2, 204],
      );

      const human = await folio('webhook', 'retry', projectId, deliveryId);
      assert.match(human.stdout, new RegExp(`^Queued delivery ${deliveryId} to be sent again`));
      const missing = await folio('webhook', 'retry', projectId, 'dlv_nope');
      assert.equal(missing.code, 1);
      assert.equal(missing.stderr, 'folio webhook retry: Delivery "dlv_nope" was not found.\n');
      const usage = await folio('webhook', 'retry', projectId);
      assert.equal(usage.code, 2);
      assert.match(usage.stderr, /missing DELIVERY_ID/);
    });
  });
}
