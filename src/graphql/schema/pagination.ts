import type { Page } from '../../domain/pagination.js';
import { builder } from '../builder.js';

export const PageInfoRef = builder.objectRef<Page<unknown>>('Pagination').implement({
  fields: (t) => ({
    page: t.exposeInt('page'),
    limit: t.exposeInt('limit'),
    totalCount: t.exposeInt('totalCount'),
    totalPages: t.exposeInt('totalPages'),
  }),
});
