/** The version Folio reports in OpenAPI and in the webhook User-Agent. */
export const FOLIO_VERSION = '0.1.0';
