import type { Kysely } from 'kysely';
import type { Database, ProjectRow } from '../db/tables.ts';
import * as articles from '../store/articles.ts';

// One known position every `stride` rows: a page is a seek to the nearest one plus a short skip.
const DEFAULT_STRIDE = 256;
// Strides learnt per query: the first request for page 5,000 of 100,000 articles would otherwise
// read 100,000 sort keys at once, which the PostgreSQL driver holds in memory whole.
const DEFAULT_STRIDES_PER_WALK = 32;

interface Listing {
  version: number;
  total: number;
  /** cursors[i] is the sort key of the row at position i * stride. */
  cursors: articles.ListCursor[];
}

/**
 * What a project's delivery list costs to page through, kept per content version: the count
 * and a sparse index of positions, learnt as deep pages are asked for. Any write that changes
 * what is served bumps the version, so a stale listing is never used by a later request.
 */
export interface ListingIndex {
  total(db: Kysely<Database>, project: ProjectRow): Promise<number>;
  page(
    db: Kysely<Database>,
    project: ProjectRow,
    offset: number,
    limit: number,
  ): Promise<articles.ServedRow[]>;
}

export function createListingIndex(
  stride = DEFAULT_STRIDE,
  stridesPerWalk = DEFAULT_STRIDES_PER_WALK,
): ListingIndex {
  const listings = new Map<string, Listing>();

  async function listingOf(db: Kysely<Database>, project: ProjectRow): Promise<Listing> {
    const known = listings.get(project.id);
    if (known && known.version === project.content_version) return known;
    const listing: Listing = {
      version: project.content_version,
      total: await articles.countPublishedArticles(db, project.id),
      cursors: [],
    };
    listings.set(project.id, listing);
    return listing;
  }

  async function cursorAt(
    db: Kysely<Database>,
    project: ProjectRow,
    listing: Listing,
    index: number,
  ): Promise<articles.ListCursor | undefined> {
    while (listing.cursors.length <= index) {
      // Walk the index from the deepest known position towards the one needed.
      const known = listing.cursors.length;
      const start = Math.max(0, known - 1);
      const from = listing.cursors[start];
      const wanted = Math.min(index - start, stridesPerWalk) * stride + 1;
      const keys = await articles.listPublishedKeysFrom(db, project.id, from, wanted);
      // Another request extended the cursors during the walk: appending would shift them all.
      if (listing.cursors.length !== known) continue;
      for (let i = known === 0 ? 0 : stride; i < keys.length; i += stride) {
        listing.cursors.push(keys[i]!);
      }
      // Fewer rows than the count said (a write raced this version): no seek for this page.
      if (keys.length < wanted && listing.cursors.length <= index) return undefined;
    }
    return listing.cursors[index];
  }

  return {
    async total(db, project) {
      return (await listingOf(db, project)).total;
    },
    async page(db, project, offset, limit) {
      const listing = await listingOf(db, project);
      if (offset >= listing.total) return [];
      const index = Math.floor(offset / stride);
      const from = index === 0 ? undefined : await cursorAt(db, project, listing, index);
      const skip = from ? offset - index * stride : offset;
      return articles.listPublishedFrom(db, project.id, { from, offset: skip, limit });
    },
  };
}
