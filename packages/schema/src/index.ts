export * from './api.ts';
export * from './blocks.ts';
export * from './blocks-json-schema.ts';
export * from './links.ts';
