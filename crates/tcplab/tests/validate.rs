//! Validation is building the world (issue 19): `parse_scenario` checks what the document
//! alone decides, and `validate_scenario` (= `tcplab validate`) builds the world without
//! running it, which is where nodes, routes, algorithms, pcap links and WLAN rates are
//! checked, once.

use tcplab::{parse_scenario, validate_scenario};

fn custom(links: &str, flows: &str, extra: &str) -> String {
    format!(
        r#"
[simulation]
duration = 1
{extra}
[topology]
kind = "custom"
nodes = ["a", "b", "c", "d"]
links = [{links}]
{flows}
"#
    )
}

const AB: &str = r#"{ between = ["a", "b"], rate = "1Mbps", delay = "1ms" }"#;

fn flow(src: &str, dst: &str, cc: &str) -> String {
    format!("[[flows]]\nsrc = \"{src}\"\ndst = \"{dst}\"\ncc = {cc}\n")
}

/// What only the engine can tell passes the schema and is refused by building, with the
/// field, the value and what is allowed.
#[test]
fn building_refuses_what_the_document_alone_cannot_tell() {
    let cases = [
        (
            custom(AB, &flow("a", "x", "\"reno\""), ""),
            "flows[0].dst",
            "no node named \"x\"; nodes are a, b, c, d",
        ),
        (
            custom(AB, &flow("a", "c", "\"reno\""), ""),
            "flows[0].dst",
            "no route from \"a\" to \"c\"",
        ),
        (
            custom(AB, &flow("a", "b", "\"westwood\""), ""),
            "flows[0].cc.name",
            "unknown congestion control \"westwood\"; known: reno",
        ),
        (
            custom(AB, &flow("a", "b", "{ name = \"vegas\", alpha = -1 }"), ""),
            "flows[0].cc",
            "",
        ),
        (
            custom(
                AB,
                &flow("a", "b", "\"reno\""),
                "[[simulation.pcap]]\nlink = \"b->c\"\nfile = \"x.pcap\"",
            ),
            "simulation.pcap[0].link",
            "no link direction named \"b->c\"",
        ),
        (
            "[simulation]\nduration = 1\n[topology]\nkind = \"wlan\"\nstations = 1\n\
             [topology.mac]\nrate = \"10Mbps\"\n[[flows]]\nsrc = \"w0\"\ndst = \"h0\"\ncc = \"reno\"\n"
                .to_string(),
            "topology.mac.rate",
            "is not an 802.11a rate; use 6, 9",
        ),
    ];
    for (doc, field, message) in cases {
        parse_scenario(&doc).unwrap_or_else(|e| panic!("the schema refused {field}: {e}"));
        let e = validate_scenario(&doc).expect_err(field);
        assert!(e.field.starts_with(field), "{field}: {e}");
        assert!(e.message.contains(message), "{field}: {e}");
    }
}

/// A TCP flow has its algorithm (flows are TCP or CBR, config::flows): without one the
/// schema refuses it, naming the key and where the names are listed.
#[test]
fn a_missing_algorithm_is_refused_by_the_schema() {
    let doc = custom(AB, "[[flows]]\nsrc = \"a\"\ndst = \"b\"\n", "");
    let e = parse_scenario(&doc).unwrap_err();
    assert_eq!(e.field, "flows[0].cc");
    assert!(
        e.message.starts_with("missing;") && e.message.contains("`tcplab algorithms`"),
        "{e}"
    );
}

/// Recovery names are read once, by the schema; the canonical document writes them back.
#[test]
fn recovery_is_parsed_by_the_schema() {
    let doc = custom(
        AB,
        &flow("a", "b", "\"reno\"").replace("cc =", "recovery = \"x\"\ncc ="),
        "",
    );
    let e = parse_scenario(&doc).unwrap_err();
    assert_eq!(e.field, "flows[0].recovery");
    assert!(
        e.message.contains("`tahoe`") && e.message.contains("`prr`"),
        "{e}"
    );
    let doc = doc.replace("\"x\"", "\"rfc6675\"");
    let s = validate_scenario(&doc).unwrap();
    assert!(
        s.to_toml().contains("recovery = \"rfc6675\""),
        "{}",
        s.to_toml()
    );
    for r in ["tahoe", "reno", "newreno", "rfc6675", "prr"] {
        assert_eq!(
            tcplab::config::Recovery::parse(r).map(|r| r.name()),
            Some(r)
        );
    }
}

/// A valid document validates to the canonical form a run reads back the same.
#[test]
fn a_valid_document_validates_to_its_canonical_form() {
    let doc = custom(AB, &flow("a", "b", "\"cubic\""), "");
    let s = validate_scenario(&doc).unwrap();
    assert_eq!(validate_scenario(&s.to_toml()).unwrap(), s);
}
