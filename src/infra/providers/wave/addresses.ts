/**
 * What Wave accepts as addresses and numbers, checked before anything is sent (a request Wave
 * would refuse is not worth a call, and the reason is ours to say clearly):
 *
 *   - docs.wave.com/checkout: a checkout session's `success_url` and `error_url` are https URLs
 *     (Wave sends the customer's browser there). The gateway's are its checkout return page under
 *     CHECKOUT_PUBLIC_URL, which must therefore be https when Wave is configured (fromEnv.ts
 *     refuses to start otherwise; behind a TLS-terminating proxy the gateway itself listens on http).
 *   - docs.wave.com/payout: a payout's `mobile` is the recipient's number in E.164. The gateway's
 *     payouts are in XOF, and Wave runs XOF wallets in Senegal, Côte d'Ivoire, Mali and Burkina
 *     Faso (wave.com); each country's national numbering plan gives the length of its numbers
 *     (ITU-T E.164 assignments; ARTP for Senegal: 9 digits, mobiles from 7; ARTCI for Côte
 *     d'Ivoire: 10 digits since 2021, mobiles from 01, 05, 07; Mali and Burkina Faso: 8 digits).
 */

export const isHttpsUrl = (value: string): boolean => {
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
};

const XOF_COUNTRIES: Record<string, { name: string; digits: number; mobile?: RegExp }> = {
  '221': { name: 'Senegal', digits: 9, mobile: /^7/ },
  '225': { name: "Côte d'Ivoire", digits: 10, mobile: /^0[157]/ },
  '223': { name: 'Mali', digits: 8 },
  '226': { name: 'Burkina Faso', digits: 8 },
};

/** Why an XOF Wave payout cannot go to `phone` (E.164), or null when it can. Never repeats the number. */
export function waveXofMobileProblem(phone: string): string | null {
  const code = Object.keys(XOF_COUNTRIES).find((prefix) => phone.startsWith(`+${prefix}`));
  if (!code) return 'Wave pays XOF out only to wallets of Senegal (+221), Côte d’Ivoire (+225), Mali (+223) and Burkina Faso (+226)';
  const country = XOF_COUNTRIES[code]!;
  const national = phone.slice(1 + code.length);
  if (!/^\d+$/.test(national) || national.length !== country.digits || (country.mobile && !country.mobile.test(national)))
    return `this is not a mobile number of ${country.name} (+${code} and ${country.digits} digits)`;
  return null;
}
