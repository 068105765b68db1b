/** True when `error` is a unique-constraint violation, in either dialect's words. */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code === '23505') return true; // PostgreSQL unique_violation
  return typeof message === 'string' && message.includes('UNIQUE constraint failed'); // SQLite
}
