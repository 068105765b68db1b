/// <reference types="astro/client" />

interface ImportMetaEnv {
  /** Folio's base address, e.g. https://folio.example.com */
  readonly FOLIO_URL: string;
  /** The project id (dashboard, Connection card) */
  readonly FOLIO_PROJECT_ID: string;
  /** A content key: build-time only, never sent to the browser */
  readonly FOLIO_CONTENT_KEY: string;
}
