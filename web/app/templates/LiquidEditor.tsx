// A CodeMirror 6 editor for a Liquid template: HTML + Liquid highlighting, completion of the merge
// fields, auto-closing that never duplicates a tag and lint markers (editor-assist.ts), and a handle the page uses to insert text (an image) at the cursor. This module and
// CodeMirror load in their own chunk (the page imports it lazily).
import { useEffect, useImperativeHandle, useRef, type Ref } from 'react';
import { EditorView, basicSetup } from 'codemirror';
import { EditorState } from '@codemirror/state';
import { html } from '@codemirror/lang-html';
import { liquid } from '@codemirror/lang-liquid';
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { tags } from '@lezer/highlight';
import { VARIABLES, propertyCompletions } from './merge-fields.ts';
import { autoCloseOnce, templateLint } from './editor-assist.ts';

export interface EditorHandle {
  /** Inserts text at the cursor (replacing the selection) and focuses the editor. */
  insert(text: string): void;
}

export interface LiquidEditorProps {
  value: string;
  onChange(value: string): void;
  /** The accessible name of the editing area. */
  label: string;
  /** HTML + Liquid (the HTML signature) or Liquid alone (the plain-text one). */
  mode: 'html' | 'text';
  handle?: Ref<EditorHandle>;
  minHeight?: string;
}

const theme = EditorView.theme({
  '&': { fontSize: '13px', border: '1px solid var(--border)', borderRadius: '6px', background: 'var(--surface)' },
  '&.cm-focused': { outline: '2px solid var(--focus)', outlineOffset: '1px' },
  '.cm-scroller': { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace' },
  '.cm-gutters': { background: 'var(--surface-2)', color: 'var(--muted)', border: 'none' },
  '.cm-activeLine, .cm-activeLineGutter': { backgroundColor: 'var(--cm-active-line)' },
  '.cm-content': { caretColor: 'var(--text)', color: 'var(--text)' },
  '.cm-cursor': { borderLeftColor: 'var(--text)' },
});

// Token colours as CSS variables (templates.css), chosen for a contrast of at least 4.5:1 in the
// light and the dark theme, active line included: CodeMirror's default style falls short there.
const highlight = HighlightStyle.define([
  { tag: [tags.tagName, tags.angleBracket], color: 'var(--cm-tag)' },
  { tag: tags.attributeName, color: 'var(--cm-attribute)' },
  { tag: [tags.string, tags.attributeValue, tags.special(tags.string)], color: 'var(--cm-string)' },
  { tag: [tags.keyword, tags.controlKeyword, tags.definitionKeyword, tags.moduleKeyword, tags.operatorKeyword], color: 'var(--cm-keyword)' },
  { tag: [tags.variableName, tags.propertyName, tags.function(tags.variableName)], color: 'var(--cm-variable)' },
  { tag: [tags.number, tags.bool, tags.null, tags.atom], color: 'var(--cm-number)' },
  { tag: [tags.comment, tags.blockComment, tags.lineComment], color: 'var(--cm-comment)', fontStyle: 'italic' },
  { tag: [tags.brace, tags.bracket, tags.punctuation, tags.operator, tags.separator], color: 'var(--cm-punctuation)' },
  { tag: [tags.meta, tags.processingInstruction, tags.documentMeta], color: 'var(--cm-comment)' },
  { tag: tags.invalid, color: 'var(--danger)' },
]);

export default function LiquidEditor({ value, onChange, label, mode, handle, minHeight = '16rem' }: LiquidEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;

  // biome-ignore lint/correctness/useExhaustiveDependencies: the editor is made once per mode; later values arrive through the effect below
  useEffect(() => {
    const language = liquid({
      ...(mode === 'html' ? { base: html() } : {}),
      variables: VARIABLES,
      properties: (path) => propertyCompletions(path),
    });
    const v = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: value,
        extensions: [
          basicSetup,
          autoCloseOnce,
          syntaxHighlighting(highlight),
          language,
          templateLint(mode),
          theme,
          EditorView.lineWrapping,
          EditorView.theme({ '.cm-content, .cm-gutter': { minHeight } }),
          EditorView.contentAttributes.of({ 'aria-label': label, 'aria-multiline': 'true' }),
          EditorView.updateListener.of((u) => {
            if (u.docChanged) onChangeRef.current(u.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = v;
    return () => {
      v.destroy();
      view.current = null;
    };
    // The editor is made once per mode; later values arrive through the effect below.
  }, [mode]);

  // A value set from outside (a reload after a conflict) replaces the document.
  useEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== value) {
      v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
    }
  }, [value]);

  useImperativeHandle(handle, () => ({
    insert(text: string) {
      const v = view.current;
      if (!v) return;
      const { from, to } = v.state.selection.main;
      v.dispatch({ changes: { from, to, insert: text }, selection: { anchor: from + text.length } });
      v.focus();
    },
  }));

  return <div ref={host} className="liquid-editor" />;
}
