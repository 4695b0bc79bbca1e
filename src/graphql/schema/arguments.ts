/** How GraphQL's arguments become the domain's: its "absent" is null, the domain's undefined; an ID may come as a number. */

/** A nullable argument as the domain's optional value. */
export const orUndefined = <T>(value: T | null | undefined): T | undefined => value ?? undefined;

/** An `organizationId: ID` argument as the organisation it names, or null (operators: every one). */
export const organizationIdOf = (id: string | number | null | undefined): string | null => (id == null ? null : String(id));
