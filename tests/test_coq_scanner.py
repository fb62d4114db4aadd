"""lean_interface.coq.text, the one scanner of Coq text: tokens and their depth, comments, strings,
matching brackets and sentence ends (sentence splitting as the backend uses it is also covered in
tests/test_coq_text.py)."""

from __future__ import annotations

import pytest

from lean_interface.coq.text import (SentenceError, check_brackets, iter_tokens, matching_close, sentence_end,
                                     sentence_texts, split_sentences, strip_comments, strip_strings, tokens, top_level,
                                     top_level_contains)


def test_tokens_keep_qualified_names_numerals_and_operator_runs_whole() -> None:
    found = [(t.text, t.kind) for t in tokens("Nat.add x' 1.5 <-> (y)%R")]
    assert found == [("Nat.add", "word"), ("x'", "word"), ("1.5", "number"), ("<->", "symbol"), ("(", "open"),
                     ("y", "word"), (")", "close"), ("%", "symbol"), ("R", "word")]


def test_depth_counts_every_bracket_kind_and_brackets_sit_outside() -> None:
    depths = [(t.text, t.depth) for t in tokens("f (a [b {c}]) d")]
    assert depths == [("f", 0), ("(", 0), ("a", 1), ("[", 1), ("b", 2), ("{", 2), ("c", 3), ("}", 2), ("]", 1),
                      (")", 0), ("d", 0)]
    assert [t.depth for t in tokens(") x")] == [0, 0]          # a stray close never goes below 0


def test_nested_comments_are_skipped_or_reported() -> None:
    text = "a (* one (* two *) still one *) b"
    assert [t.text for t in tokens(text)] == ["a", "b"]
    assert [t.kind for t in iter_tokens(text, comments=True)] == ["word", "comment", "word"]
    assert strip_comments(text) == "a   b"
    assert strip_comments("(*)*) x") == "  x"                 # `(*)` opens a comment, it does not close one
    with pytest.raises(SentenceError, match="unterminated comment"):
        tokens("a (* (* *) b")
    # coqtop reads `"*)"` inside a comment as a string; here the comment ends there, and the quote
    # left over opens a string that never ends: refused, not split in the wrong place
    with pytest.raises(SentenceError, match="unterminated string"):
        split_sentences('Definition a := 1. (* "*)" *) Definition b := 2.')


def test_strings_are_one_token_even_with_comment_marks_dots_and_escaped_quotes() -> None:
    text = 'f "a *) b. ""c"" (*" g'
    assert [(t.text, t.kind) for t in tokens(text)] == [("f", "word"), ('"a *) b. ""c"" (*"', "string"),
                                                        ("g", "word")]
    assert strip_comments(text) == text
    assert strip_strings(text) == "f   g"
    assert split_sentences('Definition s := "x. *) (* y".') [0].text == 'Definition s := "x. *) (* y".'
    with pytest.raises(SentenceError, match="unterminated string"):
        tokens('f "abc')


def test_top_level_matching_brackets_and_bracket_checks() -> None:
    assert top_level_contains("Module M := N.", ":=") and not top_level_contains("Module M (x := 1).", ":=")
    assert [t.text for t in top_level("a (b, c) , d -> forall x, e", stop={"forall"})] == \
        ["a", "(", ")", ",", "d", "->"]
    text = "(a (b) [c]) (d)"
    assert matching_close(text, 0) == 10 and matching_close(text, 3) == 5 and matching_close(text, 12) == 14
    assert matching_close("(a", 0) == -1 and matching_close("a)", 0) == -1
    assert matching_close('("(" )', 0) == 5                  # a bracket inside a string is not one
    check_brackets("f (a [b] {c}) \"(\"")
    for text, message in [("(a]", "unbalanced ']'"), ("a)", "unbalanced ')'"),
                          ("({a}", "unclosed bracket, expected ')'")]:
        with pytest.raises(ValueError) as info:
            check_brackets(text)
        assert str(info.value) == message


def test_sentence_ends_ignore_brackets_but_respect_comments_strings_and_double_dots() -> None:
    assert sentence_end("Theorem t : (x. y) = 1. Qed.") == 14     # coqtop ends it inside the brackets too
    assert sentence_end("a (* b. *) c.") == 12
    assert sentence_end('a "b. c" d.') == 10
    assert sentence_end("lia.. x") is None and sentence_end("x = 1.5") is None
    assert sentence_end("Lemma a : A. Lemma b : B.", 13) == 24
    assert sentence_texts("intros. lia..  easy.") == ["intros.", "lia..  easy."]
    assert sentence_texts("- (* c *) lia. * auto. ** now.") == ["-", "lia.", "*", "auto.", "**", "now."]
    assert sentence_texts("[x]: { lia. } {| a := 1 |}.") == ["[x]: {", "lia.", "}", "{| a := 1 |}."]
    assert sentence_texts("(* only a comment. *)\n") == []
