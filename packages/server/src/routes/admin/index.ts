import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { JsonSchemaDocument } from '@folio/schema';
import { readBearerToken } from '../../http/bearer.ts';
import type { RequestAccounting } from '../../http/request-accounting.ts';
import { type AdminCredential, verifyAdminToken } from '../../services/admin-auth.ts';
import type { ServiceDeps } from '../../services/deps.ts';
import { articleRoutes } from './articles.ts';
import { contentKeyRoutes } from './content-keys.ts';
import { projectRoutes } from './projects.ts';
import { webhookRoutes } from './webhooks.ts';

// The admin token's budget: one token, one budget, whichever process or client spends it.
const ADMIN_BUDGET = 'admin';

/** The management API: every route needs the admin token, checked before anything else. */
export function adminRoutes(
  deps: ServiceDeps,
  credential: AdminCredential,
  blocksSchema: JsonSchemaDocument,
  accounting: RequestAccounting,
): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.addHook('onRequest', async (request, reply) => {
      verifyAdminToken(credential, readBearerToken(request.headers.authorization));
      await accounting.spend(request, reply, ADMIN_BUDGET);
    });
    await app.register(projectRoutes(deps));
    await app.register(contentKeyRoutes(deps));
    await app.register(articleRoutes(deps, blocksSchema));
    await app.register(webhookRoutes(deps));
  };
}
