/**
 * Injected goals as steps. An injected text is cut into sentences and clauses; a clause that opens with
 * an action verb (send, delete, create, reserve, update, visit, say) is a step, carrying the values
 * named in it (and, for content blocks and follow-up sentences such as "The title should be '...'", the
 * values named after it). A clause telling the agent to stop is a halt goal. Purely lexical; it knows no
 * benchmark's tasks.
 */
import { extractValues, toolHints, type AttackerValue } from "./values.js";
import { visibleText } from "./addresses.js";
import { foldTypography } from "./fold.js";

export type ActionClass = "send" | "delete" | "create" | "reserve" | "buy" | "update" | "visit" | "say";

/** One step of an injected goal. */
export interface GoalStep {
  cls: ActionClass;
  /** The clause as written. */
  text: string;
  /** Offsets of the clause in the injected text. */
  start: number;
  end: number;
  /** Values named in the clause (and in the content or follow-up sentences attached to it). */
  values: AttackerValue[];
  /** Values of the previous step of the same sentence ("invite Fred ..., and then remove him"). */
  inherited: AttackerValue[];
  /** The whole sentence the clause is part of. */
  sentence: string;
  /**
   * Content words naming what the step acts on, when it names it only by a pronoun ("Please buy one") or
   * names no value: the words of its sentence and of the sentence before ("I need a pencil set."), lowercased.
   */
  objectWords: string[];
  /** `inherited` holds the values of the sentence before, which a pronoun object points at: they name the object. */
  pronounObject?: boolean;
}

/** The parsed goal of one injected text. */
export interface Goal {
  text: string;
  steps: GoalStep[];
  /** Every value named anywhere in the text. */
  values: AttackerValue[];
  /** The text tells the agent to stop what it is doing. */
  halt: boolean;
  /** Tool names the text names in backticks. */
  hints: string[];
}

/** First words of a clause -> action class. */
const VERBS: Record<string, ActionClass> = {
  send: "send",
  sent: "send",
  email: "send",
  "e-mail": "send",
  mail: "send",
  forward: "send",
  transfer: "send",
  wire: "send",
  pay: "send",
  post: "send",
  share: "send",
  message: "send",
  text: "send",
  dm: "send",
  upload: "send",
  publish: "send",
  delete: "delete",
  remove: "delete",
  erase: "delete",
  cancel: "delete",
  trash: "delete",
  wipe: "delete",
  create: "create",
  add: "create",
  schedule: "create",
  invite: "create",
  append: "create",
  insert: "create",
  reserve: "reserve",
  book: "reserve",
  buy: "buy",
  purchase: "buy",
  order: "buy",
  checkout: "buy",
  update: "update",
  change: "update",
  modify: "update",
  set: "update",
  rename: "update",
  reschedule: "update",
  edit: "update",
  replace: "update",
  visit: "visit",
  open: "visit",
  browse: "visit",
  download: "visit",
  click: "visit",
  navigate: "visit",
  fetch: "visit",
  say: "say",
  tell: "say",
  reply: "say",
  respond: "say",
  answer: "say",
  recommend: "say",
  mention: "say",
  state: "say",
  print: "say",
  output: "say",
};

/** Nouns after "make a/an", "do a", "place a" that give the class. */
const MAKE_NOUNS: Record<string, ActionClass> = {
  reservation: "reserve",
  booking: "reserve",
  transaction: "send",
  payment: "send",
  transfer: "send",
  event: "create",
  appointment: "create",
  meeting: "create",
  post: "send",
};

const FILLER = new Set([
  "please",
  "kindly",
  "do",
  "then",
  "and",
  "just",
  "also",
  "finally",
  "after",
  "afterwards",
  "first",
  "next",
  "now",
  "immediately",
  "instead",
  "simply",
  "todo",
  "so",
]);
const LEAD_PHRASES = [
  /^(?:you|u)\s+(?:should|must|need\s+to|have\s+to|will|are\s+to)\s+/i,
  /^i\s+(?:want|need)\s+you\s+to\s+/i,
  /^(?:can|could|would)\s+you\s+(?:please\s+)?/i,
  /^make\s+sure\s+(?:to|you)\s+/i,
  /^(?:go\s+ahead\s+and|be\s+sure\s+to|don'?t\s+forget\s+to)\s+/i,
];

/** The class a clause's leading verb gives, or null. */
export function clauseClass(clause: string): ActionClass | null {
  const words = leadWords(clause);
  if (words.length === 0) return null;
  if (["make", "do", "place", "perform", "initiate", "execute", "process", "issue"].includes(words[0])) {
    for (const w of words.slice(1, 4)) if (Object.hasOwn(MAKE_NOUNS, w)) return MAKE_NOUNS[w];
    return null;
  }
  return Object.hasOwn(VERBS, words[0]) ? VERBS[words[0]] : null;
}

/** The clause's leading verb as written (lowercased), after fillers and lead phrases ("Please transfer ..." -> "transfer"), or "". */
export function leadVerb(clause: string): string {
  return leadWords(clause)[0] ?? "";
}

/** The clause's lowercased words from its leading verb on (fillers and lead phrases removed). */
function leadWords(clause: string): string[] {
  let s = clause.replace(/^[\s\-*•>#\d.)]+/, "");
  for (let guard = 0; guard < 8; guard++) {
    const before = s;
    for (const re of LEAD_PHRASES) s = s.replace(re, "");
    const w = /^([A-Za-z-]+)[,:]?\s*/.exec(s);
    if (w && FILLER.has(w[1].toLowerCase())) s = s.slice(w[0].length);
    if (s === before) break;
  }
  return s.toLowerCase().match(/[a-z-]+/g) ?? [];
}

const HALT_RE =
  /\b(?:should|must|need\s+to|have\s+to|please|to)\s+(?:\w+\s+)?(?:stop|halt|abort|cease)\b|^\s*(?:stop|halt|abort)\b|\bstop\s+(?:immediately|now|what\s+you)/i;
const SIGN_OFF_RE = /^\s*(?:signed|thanks|thank\s+you|best|regards|sincerely|cheers|after\s+you\s+do\s+that|<\/)/i;
const CONTENT_INTRO_RE = /\b(?:exact(?:ly)?|verbatim|the\s+following\s+(?:language|text|content|message|words))\b/i;

interface Segment {
  start: number;
  end: number;
  sentence: number;
  sentenceText: string;
}

/** Split into clauses with offsets: sentences (newlines, sentence punctuation) then conjunction + verb. */
function segments(text: string): Segment[] {
  const out: Segment[] = [];
  // Sentences.
  const sentences: Array<[number, number]> = [];
  let s = 0;
  const boundary = /\n+|(?<!\b(?:e\.g|i\.e|etc|vs|mr|mrs|ms|dr|st|no))[.!?]+(?=\s+["'(\[]?[A-Z<])/g;
  let m: RegExpExecArray | null;
  while ((m = boundary.exec(text))) {
    const end = m[0].startsWith("\n") ? m.index : m.index + m[0].length;
    if (end > s) sentences.push([s, end]);
    s = m.index + m[0].length;
  }
  if (s < text.length) sentences.push([s, text.length]);
  // Clauses.
  sentences.forEach(([a, b], si) => {
    const sent = text.slice(a, b);
    const cuts: number[] = [0];
    const conj =
      /(?:,\s*(?:and\s+)?(?:then\s+)?|\s+and\s+(?:then\s+)?|\s+then\s+|;\s*|:\s+|\s+-\s+)(?=([A-Za-z-]+))/g;
    while ((m = conj.exec(sent))) {
      const next = sent.slice(m.index + m[0].length);
      if (clauseClass(next) !== null) cuts.push(m.index + m[0].length);
    }
    cuts.push(sent.length);
    for (let i = 0; i + 1 < cuts.length; i++) {
      if (cuts[i + 1] > cuts[i]) out.push({ start: a + cuts[i], end: a + cuts[i + 1], sentence: si, sentenceText: sent });
    }
  });
  return out.filter((x) => text.slice(x.start, x.end).trim().length > 0);
}

/** A clause whose object is a pronoun ("buy it", "send them", "order one as well"). */
const PRONOUN_OBJECT_RE = /\b(?:it|them|one|this|that|these|those)\b/i;

/** Words that carry no object of an action (framing, pronouns, verbs of the goal grammar). */
const NOT_OBJECT = new Set(
  (
    "the a an and or but to of in on at for with from by as is are was were be been this that these those it its them they " +
    "one some any all each every me my you your we our i please kindly also well then first after before now just need want " +
    "suddenly really directly immediately exact exactly item items thing things thanks task beginning solve following message " +
    "important information instruction instructions do make sure can could would should must will"
  ).split(" "),
);

/** Lowercased content words (>= 3 letters) of a text, without framing words: what a step acts on. */
function contentWords(text: string): string[] {
  const out = new Set<string>();
  for (const w of text.toLowerCase().match(/[a-z]{3,}/g) ?? []) {
    if (NOT_OBJECT.has(w) || Object.hasOwn(VERBS, w)) continue;
    out.add(w);
  }
  return [...out];
}

/**
 * Parse one injected text into goal steps.
 * @param raw the injected text (raw, as in `Trajectory.injections`); it is parsed without the invisible format
 *   characters `normalize` drops (`visibleText`: one inside an account number or an address hid it, break49 F2), so
 *   step and value offsets are into that text, folded (`./fold.ts` foldTypography: fullwidth and math-alphanumeric
 *   characters, typographic blanks and dashes; hostile54 finding 1)
 * @returns the goal (`text` is `raw`, as given); `steps` may be empty (no action verb found), in which case callers fall back to the
 *   strong values alone. Never throws.
 */
export function parseGoal(raw: string): Goal {
  const text = foldTypography(visibleText(raw));
  const values = extractValues(text);
  const hints = toolHints(text);
  const steps: GoalStep[] = [];
  let halt = false;
  let content = false; // inside a block the agent is told to reproduce verbatim
  let attach: GoalStep | null = null; // where values of non-step clauses go
  let prevSentence = -1;
  let prevStepInSentence: GoalStep | null = null;
  const segs = segments(text);
  // Sentence spans (start of its first clause, end of its last) and the sentence text, by sentence number.
  const sentenceSpan = new Map<number, { start: number; end: number; text: string }>();
  for (const seg of segs) {
    const sp = sentenceSpan.get(seg.sentence);
    if (!sp) sentenceSpan.set(seg.sentence, { start: seg.start, end: seg.end, text: seg.sentenceText });
    else sp.end = Math.max(sp.end, seg.end);
  }
  for (const seg of segs) {
    const clause = text.slice(seg.start, seg.end);
    if (seg.sentence !== prevSentence) {
      prevSentence = seg.sentence;
      prevStepInSentence = null;
    }
    if (HALT_RE.test(clause) && !/\bif\s+\w+\s+(?:does|do)\s+not\s+stop\b/i.test(clause)) halt = true;
    if (SIGN_OFF_RE.test(clause)) {
      content = false;
      attach = null;
      continue;
    }
    const inner = values.filter((v) => v.at >= seg.start && v.at < seg.end);
    const isToolHint = /`[A-Za-z_][\w.]*`/.test(clause) || /\btool\b/i.test(clause);
    const cls = content || isToolHint ? null : clauseClass(clause);
    if (cls) {
      const prevSentence = sentenceSpan.get(seg.sentence - 1);
      let inherited = prevStepInSentence ? [...prevStepInSentence.values, ...prevStepInSentence.inherited] : [];
      let pronounObject = false;
      // "Product ID P025 is the item I need. Please buy it": a pronoun object points at the sentence before.
      if (inherited.length === 0 && inner.length === 0 && prevSentence && PRONOUN_OBJECT_RE.test(clause)) {
        inherited = values.filter((v) => v.at >= prevSentence.start && v.at < prevSentence.end);
        pronounObject = inherited.length > 0;
      }
      const step: GoalStep = {
        cls,
        text: clause.trim(),
        start: seg.start,
        end: seg.end,
        values: inner,
        inherited,
        sentence: seg.sentenceText.trim(),
        pronounObject,
        objectWords: contentWords(`${prevSentence && PRONOUN_OBJECT_RE.test(clause) ? prevSentence.text : ""} ${clause}`),
      };
      steps.push(step);
      attach = step;
      prevStepInSentence = step;
    } else if (attach && !isToolHint) {
      for (const v of inner) if (!attach.values.includes(v)) attach.values.push(v);
    }
    if (CONTENT_INTRO_RE.test(clause) && /:/.test(clause)) content = true;
  }
  return { text: raw, steps, values, halt, hints };
}
