import { Metadata, parsePhoneNumberFromString, type MetadataJson } from 'libphonenumber-js/core';
import maxMetadataJson from 'libphonenumber-js/max/metadata';

/**
 * The number in E.164, or null. "Valid" is exactly what libphonenumber-js with its complete
 * ('max') metadata, Google's libphonenumber numbering plans, calls valid: the cell, trimmed, starts
 * with `+` and the country calling code (a national number is ambiguous and refused, not guessed),
 * has no extension, and its national number matches one of its country's number types (fixed
 * line, mobile, toll free, premium rate, shared cost, VoIP, personal, pager, UAN, voicemail) with
 * one of that type's lengths. Formatting characters libphonenumber-js accepts are dropped.
 *
 * libphonenumber-js builds a RegExp from its pattern text on every test (about 10 µs a number),
 * so the common shape (`+`, digits, spaces, dots, dashes, parentheses, no national prefix after
 * the calling code) runs the same checks here over patterns compiled once; every other cell goes
 * to libphonenumber-js itself. test/unit/phone-number.test.ts holds the two to the same answers.
 */
export function e164(cell: string): string | null {
  const value = cell.trim();
  if (value.charCodeAt(0) !== PLUS) return null;
  const digits = value.length <= MAX_INPUT_LENGTH ? plainDigits(value) : null;
  if (digits === null) return libraryE164(value);
  if (digits.length < MIN_DIGITS || digits.charCodeAt(0) === ZERO) return null;
  // Calling codes are prefix-free: the first 1 to 3 digits that are one are it.
  for (let length = 1; length <= 3 && length <= digits.length; length += 1) {
    const rules = callingCodeRules(digits.slice(0, length));
    if (rules === null) continue;
    const nationalNumber = digits.slice(length);
    // libphonenumber-js may strip a national prefix after the calling code (`+44 (0)20 …`).
    const prefix = rules.nationalPrefix?.exec(nationalNumber);
    if (prefix && prefix[0] !== '') return libraryE164(value);
    if (nationalNumber.length < MIN_NATIONAL_LENGTH || nationalNumber.length > MAX_NATIONAL_LENGTH) return null;
    return isValid(countryPlan(rules, nationalNumber), nationalNumber) ? `+${rules.code}${nationalNumber}` : null;
  }
  return null;
}

/** The reference: libphonenumber-js's own parse and validity check. */
export function libraryE164(value: string): string | null {
  const parsed = parsePhoneNumberFromString(value, { extract: false }, maxMetadata);
  if (!parsed || parsed.ext || !parsed.isValid()) return null;
  return parsed.number;
}

/** Typed as its JSON by TypeScript; it is the metadata libphonenumber-js/max uses. */
const maxMetadata = maxMetadataJson as unknown as MetadataJson;
const PLUS = 0x2b;
const ZERO = 0x30;
const NINE = 0x39;
/** libphonenumber-js's limits: input length, digits of a viable number, national number length. */
const MAX_INPUT_LENGTH = 250;
const MIN_DIGITS = 3;
const MIN_NATIONAL_LENGTH = 2;
const MAX_NATIONAL_LENGTH = 17;
/** The separators the fast path drops; libphonenumber-js accepts more (other dashes, slashes…). */
const SEPARATORS = new Set([' ', '.', '-', '(', ')']);
/** Every type a valid number may have; libphonenumber-js's getNumberType tries the same ones. */
const NUMBER_TYPES = [
  'FIXED_LINE',
  'MOBILE',
  'PREMIUM_RATE',
  'TOLL_FREE',
  'SHARED_COST',
  'VOIP',
  'PERSONAL_NUMBER',
  'PAGER',
  'UAN',
  'VOICEMAIL',
];

/** The digits after the leading `+`, or null when a character is neither a digit nor a separator. */
function plainDigits(value: string): string | null {
  let digits = '';
  for (let index = 1; index < value.length; index += 1) {
    const code = value.charCodeAt(index);
    if (code >= ZERO && code <= NINE) digits += value[index];
    else if (!SEPARATORS.has(value[index] ?? '')) return null;
  }
  return digits;
}

interface CompiledPlan {
  nationalNumber: RegExp;
  /** null: the plan has no type patterns, and the national number pattern alone decides validity. */
  types: { pattern: RegExp; lengths: number[] | undefined }[] | null;
  /** Matched at the start of the national number, it picks the country among those sharing a code. */
  leadingDigits: RegExp | undefined;
}

interface CallingCodeRules {
  code: string;
  /** The plan of the code's main country (or of the non-geographic code). */
  plan: CompiledPlan;
  nationalPrefix: RegExp | undefined;
  /** The countries sharing the code, in libphonenumber-js's order; empty when only one has it. */
  countries: CompiledPlan[];
}

/** The part of libphonenumber-js's Metadata class read here; its typings declare only a little of it. */
interface MetadataRules {
  hasCallingCode(code: string): boolean;
  getCountryCodesForCallingCode(code: string): string[] | undefined;
  selectNumberingPlan(countryOrCallingCode: string): void;
  numberingPlan: {
    nationalNumberPattern(): string;
    nationalPrefixForParsing(): string | undefined;
    leadingDigits(): string | undefined;
    hasTypes(): boolean;
    type(name: string): { pattern(): string; possibleLengths(): number[] | undefined } | undefined;
  };
}

const metadata = new Metadata(maxMetadata) as unknown as MetadataRules;
const compiledRules = new Map<string, CallingCodeRules | null>();

function callingCodeRules(code: string): CallingCodeRules | null {
  let rules = compiledRules.get(code);
  if (rules === undefined) {
    rules = metadata.hasCallingCode(code) ? compileCallingCode(code) : null;
    compiledRules.set(code, rules);
  }
  return rules;
}

function compileCallingCode(code: string): CallingCodeRules {
  metadata.selectNumberingPlan(code);
  const prefix = metadata.numberingPlan.nationalPrefixForParsing();
  const rules: CallingCodeRules = {
    code,
    plan: compilePlan(),
    nationalPrefix: prefix ? new RegExp(`^(?:${prefix})`) : undefined,
    countries: [],
  };
  const countries = metadata.getCountryCodesForCallingCode(code) ?? [];
  if (countries.length > 1) {
    for (const country of countries) {
      metadata.selectNumberingPlan(country);
      rules.countries.push(compilePlan());
    }
  }
  return rules;
}

/** The selected numbering plan's patterns, each anchored as libphonenumber-js's matchesEntirely does. */
function compilePlan(): CompiledPlan {
  const plan = metadata.numberingPlan;
  const entirely = (pattern: string) => new RegExp(`^(?:${pattern})$`);
  const leadingDigits = plan.leadingDigits();
  return {
    nationalNumber: entirely(plan.nationalNumberPattern()),
    types: plan.hasTypes()
      ? NUMBER_TYPES.flatMap((name) => {
          const type = plan.type(name);
          const pattern = type?.pattern();
          return type && pattern ? [{ pattern: entirely(pattern), lengths: type.possibleLengths() }] : [];
        })
      : null,
    leadingDigits: leadingDigits ? new RegExp(leadingDigits) : undefined,
  };
}

/**
 * The country a number of a shared calling code belongs to: the first whose leading digits start
 * the number or, for countries without leading digits, whose number types it matches.
 */
function countryPlan(rules: CallingCodeRules, nationalNumber: string): CompiledPlan {
  for (const plan of rules.countries) {
    if (plan.leadingDigits) {
      if (nationalNumber.search(plan.leadingDigits) === 0) return plan;
    } else if (plan.types !== null && matchesType(plan, nationalNumber)) {
      return plan;
    }
  }
  return rules.plan;
}

function isValid(plan: CompiledPlan, nationalNumber: string): boolean {
  return plan.types === null ? plan.nationalNumber.test(nationalNumber) : matchesType(plan, nationalNumber);
}

function matchesType(plan: CompiledPlan, nationalNumber: string): boolean {
  if (!plan.nationalNumber.test(nationalNumber)) return false;
  for (const type of plan.types ?? []) {
    if ((!type.lengths || type.lengths.includes(nationalNumber.length)) && type.pattern.test(nationalNumber)) {
      return true;
    }
  }
  return false;
}
