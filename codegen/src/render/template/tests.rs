//! Tests of the template subset: output as handlebars(-rust) gives it (several expected
//! texts are handlebars-rust's own test cases), and errors for what is outside it.

use serde_json::{Value, json};

use super::{Registry, TemplateError};

fn registry(templates: &[(&str, &str)]) -> Registry {
    let mut registry = Registry::default();
    for (name, text) in templates {
        registry.register(name, text).unwrap();
    }
    registry
}

fn render(text: &str, view: &Value) -> String {
    registry(&[("t", text)]).render("t", view).unwrap()
}

fn parse_error(text: &str) -> TemplateError {
    Registry::default().register("t", text).unwrap_err()
}

fn render_error(text: &str, view: &Value) -> TemplateError {
    registry(&[("t", text)]).render("t", view).unwrap_err()
}

#[test]
fn values_paths_and_literal_text() {
    let view = json!({"a": {"b": "x<&>"}, "n": -3, "f": 1.5, "t": true, "z": null, "l": [1, "s"], "o": {"k": 1}});
    assert_eq!(
        render(
            "{{a.b}} {{{a.b}}} {{& a.b}} {{ n }} {{f}} {{t}} [{{z}}] {{l}} {{o}} {{this.a.b}} {{./n}}",
            &view
        ),
        "x<&> x<&> x<&> -3 1.5 true [] [1, s] [object] x<&> -3"
    );
    assert_eq!(render("{{l.1}}", &view), "s");
    assert_eq!(render("{{@root.n}}", &view), "-3");
}

#[test]
fn if_unless_else_and_chains_follow_handlebars_truthiness() {
    let t = "{{#if v}}T{{else if w}}W{{else}}F{{/if}}|{{#unless v}}U{{else}}N{{/unless}}";
    for (v, out) in [
        (json!(false), "F|U"),
        (json!(0), "F|U"),
        (json!(""), "F|U"),
        (json!([]), "F|U"),
        (json!({}), "F|U"),
        (json!(null), "F|U"),
        (json!(1), "T|N"),
        (json!("x"), "T|N"),
        (json!([0]), "T|N"),
    ] {
        assert_eq!(render(t, &json!({"v": v, "w": false})), out, "{v}");
    }
    assert_eq!(
        render(t, &json!({"w": 1})),
        "W|U",
        "a missing value is false"
    );
    let chain = "{{#if a}}A{{else unless b}}notB{{else}}B{{/if}}";
    assert_eq!(render(chain, &json!({"a": 0, "b": 0})), "notB");
    assert_eq!(render(chain, &json!({"a": 0, "b": 1})), "B");
}

#[test]
fn each_with_and_parent_paths() {
    let view = json!({"name": "N", "items": [{"x": 1}, {"x": 2}], "m": {"k1": "a", "k2": "b"}, "w": {"y": "Y"}});
    assert_eq!(
        render(
            "{{#each items}}{{@index}}{{#if @first}}f{{/if}}{{#if @last}}l{{/if}}{{x}}{{../name}},{{/each}}",
            &view
        ),
        "0f1N,1l2N,"
    );
    assert_eq!(
        render("{{#each m}}{{@key}}={{this}};{{/each}}", &view),
        "k1=a;k2=b;"
    );
    assert_eq!(render("{{#with w}}{{y}}{{../name}}{{/with}}", &view), "YN");
    assert_eq!(
        render("{{#each e}}x{{else}}empty{{/each}}", &json!({"e": []})),
        "empty"
    );
    assert_eq!(render("{{#each e}}x{{/each}}", &json!({"e": []})), "");
    assert_eq!(
        render("{{#with e}}x{{else}}none{{/with}}", &json!({"e": null})),
        "none"
    );
    // `if` opens no scope: `../` inside it still means the block around.
    assert_eq!(
        render("{{#each items}}{{#if x}}{{../name}}{{/if}}{{/each}}", &view),
        "NN"
    );
    // Inside `with`, the enclosing `each`'s `@index` is kept.
    assert_eq!(
        render(
            "{{#each items}}{{#with this}}{{@index}}{{/with}}{{/each}}",
            &view
        ),
        "01"
    );
}

#[test]
fn a_line_holding_only_a_block_tag_is_dropped() {
    let t =
        "a\n  {{#if v}}  \nin\n  {{else}}\nout\n{{/if}}\nb\n{{! note }}\n{{!-- long\n note --}}\nc";
    assert_eq!(render(t, &json!({"v": true})), "a\nin\nb\nc");
    assert_eq!(render(t, &json!({"v": false})), "a\nout\nb\nc");
    // Not alone on its line: kept, as is the newline after it.
    assert_eq!(
        render("x {{#if v}}\ny\n{{/if}} z", &json!({"v": 1})),
        "x \ny\n z"
    );
    // A tag that ends the text counts as followed by a newline; CRLF is one newline.
    assert_eq!(
        render("a\r\n{{#if v}}\r\nb\r\n{{/if}}", &json!({"v": 1})),
        "a\r\nb\r\n"
    );
    // A value tag never stands alone.
    assert_eq!(render("a\n{{v}}\nb", &json!({"v": 1})), "a\n1\nb");
    // Two tags on one line: not standalone.
    assert_eq!(render("{{#if v}}{{/if}}\nb", &json!({"v": 1})), "\nb");
}

#[test]
fn partials_and_inline_partials_see_the_current_context() {
    let r = registry(&[
        (
            "outer",
            "{{#*inline \"p\"}}[{{x}}]{{/inline}}\n{{#each items}}{{> p}}{{> inner}}{{/each}}",
        ),
        ("inner", "<{{x}}{{#with w}}{{../x}}{{/with}}>"),
    ]);
    let view = json!({"items": [{"x": 1, "w": {"a": 1}}, {"x": 2, "w": {"a": 1}}]});
    assert_eq!(r.render("outer", &view).unwrap(), "\n[1]<11>[2]<22>");
    // An inline partial is seen from the partials the template includes.
    let r = registry(&[
        ("outer", "{{#*inline \"p\"}}P{{/inline}}{{> inner}}"),
        ("inner", "({{> p}})"),
    ]);
    assert_eq!(r.render("outer", &json!({})).unwrap(), "(P)");
}

#[test]
fn partials_are_indented_as_handlebars_rust_indents_them() {
    // handlebars-rust's `test_partial_indent`.
    let r = registry(&[
        ("inner", "name: {{name}}\n"),
        (
            "outer",
            "{{#each inners}}\n                {{> inner}}\n{{/each}}\n\n        {{#each inners}}\n        {{> inner}}\n        {{/each}}\n",
        ),
    ]);
    let view = json!({"inners": [{"name": "hello"}, {"name": "there"}]});
    assert_eq!(
        r.render("outer", &view).unwrap(),
        "                name: hello\n                name: there\n\n        name: hello\n        name: there\n"
    );
    // handlebars-rust's `test_multiline_partial_indent` t1, t2 and t3.
    let t1 = "{{#*inline \"thepartial\"}}\n  inner first line\n  inner second line\n{{/inline}}\n  {{> thepartial}}\nouter third line";
    assert_eq!(
        render(t1, &json!({})),
        "    inner first line\n    inner second line\nouter third line"
    );
    let t2 = "{{#*inline \"thepartial\"}}inner first line\ninner second line\n{{/inline}}\n  {{> thepartial}}\nouter third line";
    assert_eq!(
        render(t2, &json!({})),
        "  inner first line\n  inner second line\nouter third line"
    );
    let t3 = "{{#*inline \"thepartial\"}}{{a}}{{/inline}}\n  {{> thepartial}}\nouter third line";
    assert_eq!(
        render(t3, &json!({"a": "inner first line\ninner second line"})),
        "\n  inner first line\n  inner second lineouter third line"
    );
    // handlebars-rust's `test_indent_level_on_nested_partials`.
    let r = registry(&[
        ("nested", "<div>\n    content\n</div>\n"),
        ("partial", "<div>\n    {{>nested}}\n</div>\n"),
        ("top", "<div>\n    {{>partial}}\n</div>\n"),
    ]);
    assert_eq!(
        r.render("top", &json!({})).unwrap(),
        "<div>\n    <div>\n        <div>\n            content\n        </div>\n    </div>\n</div>\n"
    );
}

#[test]
fn strict_mode_names_what_is_missing_and_where() {
    let err = render_error("ok\n  {{nope}}", &json!({}));
    assert_eq!(
        err.to_string(),
        "line 2:3: `nope` is not in the view (strict mode)"
    );
    assert_eq!(err.template, "t");
    let err = render_error("{{#each x}}{{/each}}", &json!({"x": "s"}));
    assert!(
        err.to_string().contains("`x` is not a list or an object"),
        "{err}"
    );
    let err = render_error("{{#with x}}{{/with}}", &json!({"x": null}));
    assert!(err.to_string().contains("`x` is missing or empty"), "{err}");
    let err = render_error("{{a.b.c}}", &json!({"a": {"b": 1}}));
    assert!(err.to_string().contains("`a.b.c`"), "{err}");
    let err = render_error(
        "{{#each l}}{{../../x}}{{/each}}",
        &json!({"l": [1], "x": 1}),
    );
    assert!(
        err.to_string().contains("`../../x` is not in the view"),
        "{err}"
    );
}

#[test]
fn an_error_in_a_partial_names_the_partial() {
    let r = registry(&[("outer", "x\n{{> inner}}"), ("inner", "\n\n {{missing}}")]);
    let err = r.render("outer", &json!({})).unwrap_err();
    assert_eq!(err.template, "inner");
    assert_eq!(err.at.to_string(), "3:2");
    let err = registry(&[("outer", "{{> nothing}}")])
        .render("outer", &json!({}))
        .unwrap_err();
    assert_eq!(err.to_string(), "line 1:1: no partial named `nothing`");
    let err = registry(&[("loop", "{{> loop}}")])
        .render("loop", &json!({}))
        .unwrap_err();
    assert!(
        err.to_string().contains("partials nest deeper than"),
        "{err}"
    );
}

#[test]
fn constructs_outside_the_subset_are_named_at_their_place() {
    let cases = [
        (
            "a {{lookup x y}}",
            "1:3",
            "the helper call `{{lookup x y}}`",
        ),
        ("{{#each x as |y|}}{{/each}}", "1:1", "only one argument"),
        (
            "{{#if x includeZero=true}}{{/if}}",
            "1:1",
            "only one argument",
        ),
        ("\n{{#foo x}}{{/foo}}", "2:1", "the block helper `#foo`"),
        ("{{~x}}", "1:1", "whitespace control `~`"),
        ("{{{{raw}}}}", "1:1", "raw block"),
        ("{{#> layout}}{{/layout}}", "1:1", "partial block"),
        ("{{> p ctx}}", "1:1", "a name alone"),
        ("{{*decorator}}", "1:1", "the decorator"),
        ("{{#*foo}}{{/foo}}", "1:1", "the decorator"),
        ("{{^x}}{{/x}}", "1:1", "inverse section"),
        ("\\{{x}}", "1:2", "escaped"),
        ("{{a/b}}", "1:1", "`a/b` is not a path"),
        ("{{[a b]}}", "1:1", "is outside the supported subset"),
        ("{{@foo}}", "1:1", "`@foo` is not a path"),
        ("{{\"s\"}}", "1:1", "is not a path"),
        ("{{x", "1:1", "not closed by `}}`"),
        ("{{!-- x", "1:1", "not closed by `--}}`"),
        (
            "{{#if a}}\n{{#each b}}\n{{/if}}",
            "3:1",
            "`{{/if}}` closes `{{#each}}` opened at line 2:1",
        ),
        ("{{#each items}", "1:1", "not closed by `}}`"),
        ("x\n{{#each items}}", "2:1", "`{{#each}}` is not closed"),
        ("{{/if}}", "1:1", "closes no open block"),
        ("{{else}}", "1:1", "outside a block"),
        (
            "{{#if a}}{{else}}{{else}}{{/if}}",
            "1:18",
            "a second `{{else}}`",
        ),
        (
            "{{#if a}}{{#*inline \"p\"}}{{/inline}}{{/if}}",
            "1:10",
            "top level",
        ),
        ("{{#if}}{{/if}}", "1:1", "needs one argument"),
    ];
    for (text, at, says) in cases {
        let err = parse_error(text);
        assert_eq!(err.at.to_string(), at, "{text}: {err}");
        assert!(err.message.contains(says), "{text}: {err}");
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let text = "{{#if a}}".repeat(100) + &"{{/if}}".repeat(100);
    assert!(parse_error(&text).message.contains("nest deeper"));
}

#[test]
fn every_built_in_template_parses() {
    for (name, text) in crate::render::TEMPLATES {
        Registry::default().register(name, text).unwrap();
    }
}
