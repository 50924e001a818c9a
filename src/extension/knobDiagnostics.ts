/**
 * Diagnostics on knob assignments in .env files, shell scripts, launch.json and tasks.json:
 * values that contradict the catalog for the library versions on the node, with a quick
 * fix where the catalog knows the right value. In launch.json both shapes are read, `env`
 * objects and `environment` lists of {name, value} (envFiles.ts), and the range is the value
 * node's, so the squiggle and the fix sit on the value whichever shape holds it.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { diagnoseAssignments } from '../core/advice/diagnose';
import type { EnvFileKind } from '../core/advice/envFiles';
import { findAssignments } from '../core/advice/envFiles';
import type { Library } from '../core/advice/knobs';
import type { Run } from '../core/run';
import { adviceSettings } from './settings';

const SOURCE = 'SDMA Lens';
const DEBOUNCE_MS = 300;
/** Files larger than this are not scanned: knob files are small, and typing must stay fast. */
const MAX_CHARS = 512 * 1024;

export function envFileKind(doc: vscode.TextDocument): EnvFileKind | undefined {
  const base = path.basename(doc.fileName);
  if (base === 'launch.json') return 'launch';
  if (base === 'tasks.json') return 'tasks';
  if (/^\.env(\..+)?$/.test(base) || base.endsWith('.env') || doc.languageId === 'dotenv') return 'dotenv';
  if (doc.languageId === 'shellscript' || /\.(sh|bash)$/.test(base)) return 'shell';
  return undefined;
}

export class KnobDiagnostics implements vscode.CodeActionProvider, vscode.Disposable {
  static readonly providedCodeActionKinds = [vscode.CodeActionKind.QuickFix];
  private readonly collection = vscode.languages.createDiagnosticCollection('sdmaLens.knobs');
  private readonly fixes = new WeakMap<vscode.Diagnostic, string>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private detected: Partial<Record<Library, string>> = {};
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly log: vscode.LogOutputChannel) {
    this.disposables.push(
      this.collection,
      vscode.workspace.onDidOpenTextDocument((d) => this.schedule(d)),
      vscode.workspace.onDidChangeTextDocument((e) => this.schedule(e.document)),
      vscode.workspace.onDidCloseTextDocument((d) => this.collection.delete(d.uri)),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('sdmaLens.advice')) this.refreshAll();
      }),
      vscode.languages.registerCodeActionsProvider(
        [{ scheme: 'file' }, { scheme: 'vscode-remote' }, { scheme: 'untitled' }],
        this,
        { providedCodeActionKinds: KnobDiagnostics.providedCodeActionKinds },
      ),
    );
    this.refreshAll();
  }

  /** Library versions the helper detected on the node, from the newest run seen. */
  rememberVersions(run: Run): void {
    const found: Partial<Record<Library, string>> = {};
    for (const lib of run.topology?.libraries ?? []) {
      const name = lib.name.toLowerCase();
      if (name === 'rccl' || name === 'nccl' || name === 'rocshmem') found[name] = lib.version;
    }
    this.detected = found;
    this.refreshAll();
  }

  private versions(): Partial<Record<Library, string>> {
    try {
      return { ...this.detected, ...adviceSettings().libraries };
    } catch {
      return this.detected;
    }
  }

  private refreshAll(): void {
    for (const doc of vscode.workspace.textDocuments) this.update(doc);
  }

  private schedule(doc: vscode.TextDocument): void {
    if (!envFileKind(doc)) return;
    const key = doc.uri.toString();
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        this.update(doc);
      }, DEBOUNCE_MS),
    );
  }

  update(doc: vscode.TextDocument): vscode.Diagnostic[] {
    const kind = envFileKind(doc);
    if (!kind || doc.isClosed) return [];
    const text = doc.getText();
    if (text.length > MAX_CHARS) return [];
    const problems = diagnoseAssignments(findAssignments(text, kind), this.versions());
    const diagnostics = problems.map((p) => {
      const range = new vscode.Range(doc.positionAt(p.assignment.valueStart), doc.positionAt(p.assignment.valueEnd));
      const d = new vscode.Diagnostic(
        range,
        p.message,
        p.severity === 'warning' ? vscode.DiagnosticSeverity.Warning : vscode.DiagnosticSeverity.Information,
      );
      d.source = SOURCE;
      d.code = p.assignment.name;
      if (p.fix !== undefined) this.fixes.set(d, p.fix);
      return d;
    });
    this.collection.set(doc.uri, diagnostics);
    if (diagnostics.length > 0) this.log.trace(`${doc.uri.fsPath}: ${diagnostics.length} knob diagnostics`);
    return diagnostics;
  }

  provideCodeActions(
    doc: vscode.TextDocument,
    _range: vscode.Range,
    context: vscode.CodeActionContext,
  ): vscode.CodeAction[] {
    const actions: vscode.CodeAction[] = [];
    for (const d of context.diagnostics) {
      const fix = d.source === SOURCE ? this.fixes.get(d) : undefined;
      if (fix === undefined) continue;
      const action = new vscode.CodeAction(
        vscode.l10n.t('Set {0}={1}', String(d.code), fix),
        vscode.CodeActionKind.QuickFix,
      );
      action.edit = new vscode.WorkspaceEdit();
      action.edit.replace(doc.uri, d.range, fix);
      action.diagnostics = [d];
      action.isPreferred = true;
      actions.push(action);
    }
    return actions;
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    for (const d of this.disposables) d.dispose();
  }
}
