import type { Pagination } from '@folio/schema';

/** The contract's page size maximum: larger values are capped, not refused. */
export const MAX_PAGE_SIZE = 100;

export interface PageQuery {
  page: number;
  limit: number;
}

/** The pagination object for `total` items, and the offset of the requested page. */
export function paginate(query: PageQuery, total: number): { pagination: Pagination; offset: number } {
  const limit = Math.min(query.limit, MAX_PAGE_SIZE);
  const totalPages = Math.ceil(total / limit);
  return {
    pagination: {
      page: query.page,
      limit,
      total,
      totalPages,
      hasNext: query.page < totalPages,
      hasPrev: query.page > 1,
    },
    offset: (query.page - 1) * limit,
  };
}

/** One page of a list held whole in memory (projects, keys: a handful each). */
export function pageOf<T>(items: T[], query: PageQuery): { data: T[]; pagination: Pagination } {
  const { pagination, offset } = paginate(query, items.length);
  return { data: items.slice(offset, offset + pagination.limit), pagination };
}
