/**
 * Code lenses and hovers above `__global__` kernels: "Profile" runs the configured program
 * under the helper's `run` subcommand; after a run, a summary lens shows what that kernel did and
 * opens the run's timeline filtered to its launches; the hover has the same facts and links
 * to that timeline and to the run's text summary. Detection is cached per document version,
 * so typing never waits for it.
 */
import * as vscode from 'vscode';
import { codeLensSettings } from './settings';
import type { KernelSite } from '../core/kernels/detect';
import { detectKernels } from '../core/kernels/detect';
import type { KernelFactsText } from '../core/profile/kernelFacts';
import { factsBySite } from '../core/profile/kernelFacts';
import type { ProfileSummary } from '../core/profile/profileSummary';
import type { ShowTimelineArgs } from './commands/showTimeline';
import { markdownText } from '../core/text';

/** Files larger than this get no lenses: generated sources are not what users profile by hand. */
const MAX_CHARS = 4 * 1024 * 1024;

export const KERNEL_SELECTOR: vscode.DocumentSelector = [
  { language: 'cpp' },
  { language: 'c' },
  { language: 'cuda-cpp' },
  { language: 'hip' },
  { pattern: '**/*.{hip,cu,cuh}' },
];

/** The newest profile run: what its kernels did. */
export interface Profile {
  runId: string;
  summary: ProfileSummary;
}

/** Kernel names come from the program's binary, not from us: Markdown-escaped, controls and bidi marks shown. */
const escapeMarkdown = markdownText;

/** The summary lens's command: the run's timeline, filtered to the launches these facts are about. */
export function timelineArgsFor(runId: string, qualifiedName: string, facts: KernelFactsText): ShowTimelineArgs {
  const args: ShowTimelineArgs = { runId, kernelNames: facts.printedNames, kernel: qualifiedName };
  if (facts.ambiguous) args.ambiguous = facts.ambiguous;
  return args;
}

/** A `command:` link for a trusted hover; arguments are JSON, URI-encoded. */
function commandLink(command: string, args: unknown): string {
  return `command:${command}?${encodeURIComponent(JSON.stringify([args]))}`;
}

export class KernelLensProvider implements vscode.CodeLensProvider, vscode.HoverProvider, vscode.Disposable {
  private readonly cache = new Map<string, { version: number; kernels: KernelSite[] }>();
  private profile: Profile | undefined;
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;
  private readonly closeSubscription = vscode.workspace.onDidCloseTextDocument((d) =>
    this.cache.delete(d.uri.toString()),
  );
  // Turning the lenses off or on redraws them at once.
  private readonly configSubscription = vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration('sdmaLens.codeLens')) this.changed.fire();
  });

  /** Kernels of a document, detected once per version. */
  kernels(doc: vscode.TextDocument): KernelSite[] {
    const key = doc.uri.toString();
    const hit = this.cache.get(key);
    if (hit && hit.version === doc.version) return hit.kernels;
    const text = doc.getText();
    const kernels = text.length > MAX_CHARS ? [] : detectKernels(text);
    this.cache.set(key, { version: doc.version, kernels });
    return kernels;
  }

  /** Shows a profile run's facts above the kernels it ran. */
  setProfile(profile: Profile | undefined): void {
    this.profile = profile;
    this.changed.fire();
  }

  /** Facts per detected kernel of a document (by qualified name), from the newest profile. */
  factsOf(doc: vscode.TextDocument): Map<string, KernelFactsText> {
    return this.profile
      ? factsBySite(this.profile.summary.kernels, this.kernels(doc))
      : new Map<string, KernelFactsText>();
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    if (!codeLensSettings(doc.uri).enabled) return [];
    const lenses: vscode.CodeLens[] = [];
    const facts = this.factsOf(doc);
    for (const k of this.kernels(doc)) {
      if (!k.isDefinition) continue;
      const at = doc.positionAt(k.globalOffset);
      const range = new vscode.Range(at, at);
      lenses.push(
        new vscode.CodeLens(range, {
          title: vscode.l10n.t('$(pulse) Profile'),
          tooltip: vscode.l10n.t('Run the configured program under SDMA Lens and show what {0} did', k.qualifiedName),
          command: 'sdmaLens.profile',
          arguments: [{ uri: doc.uri.toString(), kernel: k.qualifiedName }],
        }),
      );
      const f = facts.get(k.qualifiedName);
      if (f && this.profile) {
        lenses.push(
          new vscode.CodeLens(range, {
            title: f.summary,
            tooltip: f.ambiguous
              ? vscode.l10n.t(
                  'From run {0}: open its timeline filtered to {1} ({2})',
                  this.profile.runId,
                  k.qualifiedName,
                  f.ambiguous,
                )
              : vscode.l10n.t('From run {0}: open its timeline filtered to {1}', this.profile.runId, k.qualifiedName),
            command: 'sdmaLens.showTimeline',
            arguments: [timelineArgsFor(this.profile.runId, k.qualifiedName, f)],
          }),
        );
      }
    }
    return lenses;
  }

  provideHover(doc: vscode.TextDocument, position: vscode.Position): vscode.Hover | undefined {
    const offset = doc.offsetAt(position);
    const k = this.kernels(doc).find((x) => offset >= x.nameOffset && offset <= x.nameOffset + x.name.length);
    const facts = k && this.factsOf(doc).get(k.qualifiedName);
    if (!k || !facts || !this.profile) return undefined;
    // Escaped: kernel names come from the program's binary, not from us.
    const runId = this.profile.runId;
    const links = vscode.l10n.t(
      '[Open timeline]({0}) · [Open summary]({1})',
      commandLink('sdmaLens.showTimeline', timelineArgsFor(runId, k.qualifiedName, facts)),
      commandLink('sdmaLens.openProfile', { runId, kernel: facts.printedName }),
    );
    const heading = vscode.l10n.t(
      '**{0}** (SDMA Lens, run {1})',
      escapeMarkdown(k.qualifiedName),
      escapeMarkdown(runId),
    );
    const md = new vscode.MarkdownString(
      `${heading}\n\n${escapeMarkdown(facts.summary)}\n\n${facts.details
        .split('\n')
        .map((line) => `- ${escapeMarkdown(line.replace(/^- /, ''))}`)
        .join('\n')}\n\n${links}`,
    );
    // Only these two commands may run from the hover's links.
    md.isTrusted = { enabledCommands: ['sdmaLens.showTimeline', 'sdmaLens.openProfile'] };
    return new vscode.Hover(
      md,
      new vscode.Range(doc.positionAt(k.nameOffset), doc.positionAt(k.nameOffset + k.name.length)),
    );
  }

  dispose(): void {
    this.changed.dispose();
    this.closeSubscription.dispose();
    this.configSubscription.dispose();
  }
}
