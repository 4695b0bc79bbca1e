/**
 * Paid volume: payments that were paid and still are. A refunded payment gave the money back, so
 * it is not volume (issue 30); one held in escrow (paid_and_blocked) is. The home page's totals and
 * the overview chart both count by this one list (the chart is drawn in the browser: it imports it).
 */
export const PAID_VOLUME_STATUSES = ['paid', 'paid_and_blocked'] as const;

export const isPaidVolume = (status: string | null | undefined): boolean => (PAID_VOLUME_STATUSES as readonly (string | null | undefined)[]).includes(status);
