/**
 * A wallet as Sonatel's Orange Money API names it (`idType: MSISDN`): the national number without
 * the country code, in Senegal's numbering plan (ARTP): 9 digits, mobiles starting with 7 (70, 75,
 * 76, 77, 78). The gateway holds numbers in E.164 (+221 7X XXX XX XX); anything that is not a
 * Senegal mobile cannot be an Orange Money Senegal wallet, so nothing is sent for it.
 */
const SENEGAL_MOBILE = /^7[05-8]\d{7}$/;

/** +221 7X XXX XX XX (or 00221…, or the 9 digits alone) -> the MSISDN the API takes; undefined when not a Senegal mobile. */
export function senegalMsisdn(phone: string): string | undefined {
  const digits = phone.replace(/[\s().-]/g, '');
  const national = /^(?:\+|00)?221(\d{9})$/.exec(digits)?.[1] ?? /^(\d{9})$/.exec(digits)?.[1];
  return national && SENEGAL_MOBILE.test(national) ? national : undefined;
}
