import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  DeliverySchema,
  PageQuerySchema,
  QueuedDeliverySchema,
  Success,
  SuccessPage,
  WebhookInputSchema,
  WebhookSchema,
  WebhookSecretSchema,
} from '@folio/schema';
import { Type } from '@sinclair/typebox';
import type { ServiceDeps } from '../../services/deps.ts';
import {
  getWebhook,
  listDeliveries,
  retryDelivery,
  revealWebhookSecret,
  rotateWebhookSecret,
  sendTestEvent,
  setWebhookUrl,
} from '../../services/webhooks.ts';
import { errorResponses, ProjectParams } from '../common.ts';

const tags = ['Webhook'];
const base = '/admin/v1/projects/:projectId/webhook';

export function webhookRoutes(deps: ServiceDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      base,
      {
        schema: {
          tags,
          operationId: 'getWebhook',
          summary: 'Read the webhook settings',
          params: ProjectParams,
          response: { 200: Success(WebhookSchema), ...errorResponses },
        },
      },
      async (request) => ({ success: true as const, data: await getWebhook(deps, request.params.projectId) }),
    );

    app.put(
      base,
      {
        schema: {
          tags,
          operationId: 'setWebhook',
          summary: 'Set the webhook URL, or remove it with null',
          params: ProjectParams,
          body: WebhookInputSchema,
          response: { 200: Success(WebhookSchema), ...errorResponses },
        },
      },
      async (request) => ({
        success: true as const,
        data: await setWebhookUrl(deps, request.params.projectId, request.body.url),
      }),
    );

    app.post(
      `${base}/reveal-secret`,
      {
        schema: {
          tags,
          operationId: 'revealWebhookSecret',
          summary: 'Reveal the signing secret; from now on deliveries are signed',
          params: ProjectParams,
          response: { 200: Success(WebhookSecretSchema), ...errorResponses },
        },
      },
      async (request) => ({
        success: true as const,
        data: { secret: await revealWebhookSecret(deps, request.params.projectId) },
      }),
    );

    app.post(
      `${base}/rotate-secret`,
      {
        schema: {
          tags,
          operationId: 'rotateWebhookSecret',
          summary: 'Replace the signing secret; the old one keeps signing for 24 hours',
          params: ProjectParams,
          response: { 200: Success(WebhookSecretSchema), ...errorResponses },
        },
      },
      async (request) => ({
        success: true as const,
        data: { secret: await rotateWebhookSecret(deps, request.params.projectId) },
      }),
    );

    app.post(
      `${base}/test`,
      {
        schema: {
          tags,
          operationId: 'sendTestWebhook',
          summary: 'Send a webhook.test event',
          params: ProjectParams,
          response: { 202: Success(QueuedDeliverySchema), ...errorResponses },
        },
      },
      async (request, reply) => {
        reply.code(202);
        return { success: true as const, data: await sendTestEvent(deps, request.params.projectId) };
      },
    );

    app.get(
      `${base}/deliveries`,
      {
        schema: {
          tags,
          operationId: 'listWebhookDeliveries',
          summary: 'The delivery log, newest first',
          params: ProjectParams,
          querystring: PageQuerySchema,
          response: { 200: SuccessPage(DeliverySchema), ...errorResponses },
        },
      },
      async (request) => {
        const { page = 1, limit = 20 } = request.query;
        return {
          success: true as const,
          ...(await listDeliveries(deps, request.params.projectId, { page, limit })),
        };
      },
    );

    app.post(
      `${base}/deliveries/:deliveryId/retry`,
      {
        schema: {
          tags,
          operationId: 'retryWebhookDelivery',
          summary:
            'Send a delivery again now; its attempts keep counting (409 without a webhook URL to send to)',
          params: Type.Object({ projectId: Type.String(), deliveryId: Type.String() }),
          response: { 202: Success(Type.Object({ deliveryId: Type.String() })), ...errorResponses },
        },
      },
      async (request, reply) => {
        await retryDelivery(deps, request.params.projectId, request.params.deliveryId);
        reply.code(202);
        return { success: true as const, data: { deliveryId: request.params.deliveryId } };
      },
    );
  };
}
