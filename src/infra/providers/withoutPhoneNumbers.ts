/**
 * A provider's own words (an error message, a refusal's detail) may name a wallet: numbers that look
 * like one are masked before the words reach a reason, an error or a log line (no phone number in
 * a log line). One rule for every connector.
 */
export const withoutPhoneNumbers = (text: string): string => text.replace(/\+?\d[\d ]{7,}\d/g, '<number>');
