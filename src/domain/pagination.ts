/** Page arithmetic shared by every list operation (spec: default page 1, limit 20, max 100). */
import { DomainError } from './errors.js';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;
/** Deep OFFSETs cost a scan of every skipped row; past this, filter by date instead. */
const MAX_PAGE = 100_000;

export interface PageRequest {
  page?: number;
  limit?: number;
}

export interface Page<T> {
  items: T[];
  page: number;
  limit: number;
  totalCount: number;
  totalPages: number;
}

export function resolvePage(request: PageRequest): { page: number; limit: number; skip: number } {
  const page = request.page ?? 1;
  const requestedLimit = request.limit ?? DEFAULT_PAGE_SIZE;
  if (!Number.isSafeInteger(page) || page < 1 || page > MAX_PAGE) throw new DomainError('invalid_query', `page must be an integer from 1 to ${MAX_PAGE}`);
  if (!Number.isInteger(requestedLimit) || requestedLimit < 1) throw new DomainError('invalid_query', 'limit must be a positive integer');
  // Above the maximum the limit is capped, not refused (docs/architecture.md#lists).
  const limit = Math.min(requestedLimit, MAX_PAGE_SIZE);
  return { page, limit, skip: (page - 1) * limit };
}

export function toPage<T>(items: T[], totalCount: number, page: number, limit: number): Page<T> {
  return { items, page, limit, totalCount, totalPages: Math.ceil(totalCount / limit) };
}
