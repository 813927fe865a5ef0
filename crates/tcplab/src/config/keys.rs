//! Every key a scenario document accepts, read from the schema's own `Deserialize` impls,
//! so that the documentation can be checked against the engine (tests/test_docs.py): a key
//! added to a struct appears here without anyone listing it.
//!
//! serde's derive hands a deserializer the names of a struct's fields (and of a unit
//! enum's variants) before it reads anything; [`names`] asks for them with a deserializer
//! that answers nothing else. What is written by hand is only where each struct sits in the
//! document ([`schema`]), and the own keys of `CustomLink`, whose `flatten` hides them.

use super::flows::{FlowKind, FlowSpec};
use super::jitter::{EmpiricalJitter, ExponentialJitter, NormalJitter, UniformJitter};
use super::queues::{RedConstSpec, RedMode, RedSpec, SplitSpec, SredSpec, SredVariant, ZlRedSpec};
use super::schema::*;
use super::traces::{PcapResolution, PcapSpec, TapPoint};
use super::wlan::{ApAccess, MacSpec, RadioSpec, WlanSpec};
use super::JitterSpec;
use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use std::fmt;

/// One table of the document: where it appears, the keys it accepts, and for the keys
/// whose value is one of a fixed set of names, those names.
#[derive(Clone, Debug, PartialEq)]
pub struct SchemaTable {
    /// `simulation`, `flows[]`, `topology.links[]`; a variant of a tagged table is written
    /// `queue(kind=red)`. `link` is every link (`bottleneck`, `access`, `hop`, `wired` and
    /// each custom link), `queue`, `loss` and `jitter` wherever a link or direction has one.
    pub path: String,
    pub keys: Vec<&'static str>,
    pub choices: Vec<(&'static str, Vec<&'static str>)>,
}

/// What the probe found: the names, or why there are none.
#[derive(Debug)]
struct Found(Result<&'static [&'static str], String>);

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

impl std::error::Error for Found {}

impl de::Error for Found {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Found(Err(msg.to_string()))
    }
}

/// A deserializer that answers a derived struct or enum with the names it was given.
struct Probe;

impl<'de> Deserializer<'de> for Probe {
    type Error = Found;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Found> {
        Err(Found(Err("not a derived struct or unit enum".into())))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Found> {
        Err(Found(Ok(fields)))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        variants: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Found> {
        Err(Found(Ok(variants)))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map identifier ignored_any
    }
}

/// The keys of a derived struct, or the names of a derived unit enum's values.
pub fn names<T: DeserializeOwned>() -> Vec<&'static str> {
    match T::deserialize(Probe) {
        Err(Found(Ok(names))) => names.to_vec(),
        _ => panic!(
            "{} is not a derived struct or enum",
            std::any::type_name::<T>()
        ),
    }
}

fn table<T: DeserializeOwned>(
    path: &str,
    choices: &[(&'static str, Vec<&'static str>)],
) -> SchemaTable {
    SchemaTable {
        path: path.to_string(),
        keys: names::<T>(),
        choices: choices.to_vec(),
    }
}

/// A tagged table: its tag key and the tag's values (each variant is its own table).
fn tagged(path: &str, tag: &'static str, kinds: &[&'static str]) -> SchemaTable {
    SchemaTable {
        path: path.to_string(),
        keys: vec![tag],
        choices: vec![(tag, kinds.to_vec())],
    }
}

/// Every table of the scenario document (congestion-control parameters are in
/// `cc::PARAMETERS`).
pub fn schema() -> Vec<SchemaTable> {
    let applies = || ("applies_to", names::<LossApplies>());
    let mut links = vec!["between", "monitor"]; // CustomLink's own keys (see the module doc)
    links.extend(names::<LinkSpec>());
    vec![
        table::<Scenario>("", &[]),
        table::<Simulation>("simulation", &[]),
        table::<PcapSpec>(
            "simulation.pcap[]",
            &[
                ("at", names::<TapPoint>()),
                ("resolution", names::<PcapResolution>()),
            ],
        ),
        tagged("topology", "kind", Topology::KINDS),
        table::<DumbbellSpec>("topology(kind=dumbbell)", &[]),
        table::<ChainSpec>("topology(kind=chain)", &[]),
        table::<StarSpec>("topology(kind=star)", &[]),
        table::<WlanSpec>("topology(kind=wlan)", &[("ap_access", names::<ApAccess>())]),
        table::<MacSpec>("topology(kind=wlan).mac", &[]),
        table::<RadioSpec>("topology(kind=wlan).radio", &[]),
        table::<CustomSpec>("topology(kind=custom)", &[]),
        SchemaTable {
            path: "topology(kind=custom).links[]".into(),
            keys: links,
            choices: vec![],
        },
        table::<AccessOverride>("topology.pair_access[]", &[]),
        table::<LinkSpec>("link", &[]),
        table::<DirectionSpec>("link.reverse", &[]),
        tagged("queue", "kind", QueueSpec::KINDS),
        table::<DropTailSpec>("queue(kind=droptail)", &[]),
        table::<RedSpec>("queue(kind=red)", &[("mode", names::<RedMode>())]),
        table::<RedConstSpec>("queue(kind=red_const)", &[]),
        table::<SredSpec>("queue(kind=sred)", &[("variant", names::<SredVariant>())]),
        table::<ZlRedSpec>("queue(kind=zl_red)", &[]),
        table::<SplitSpec>("queue(kind=split)", &[]),
        table::<RoundRobinSpec>("queue(kind=round_robin)", &[]),
        tagged("loss", "model", LossSpec::KINDS),
        table::<BernoulliSpec>(
            "loss(model=bernoulli)",
            &[applies(), ("stream", names::<LossStream>())],
        ),
        table::<GilbertElliottSpec>("loss(model=gilbert_elliott)", &[applies()]),
        tagged("jitter", "kind", JitterSpec::KINDS),
        table::<UniformJitter>("jitter(kind=uniform)", &[]),
        table::<ExponentialJitter>("jitter(kind=exponential)", &[]),
        table::<NormalJitter>("jitter(kind=normal)", &[]),
        table::<EmpiricalJitter>("jitter(kind=empirical)", &[]),
        table::<TcpOptions>(
            "tcp",
            &[
                ("stack", names::<Stack>()),
                ("window_growth", names::<WindowGrowth>()),
                ("rto_estimator", names::<RtoEstimatorKind>()),
                ("partial_ack_timer", names::<PartialAckTimer>()),
                ("app_push", names::<AppPush>()),
            ],
        ),
        table::<FlowSpec>("flows[]", &[("kind", names::<FlowKind>())]),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_keys_and_values_from_the_derives() {
        let tcp = names::<TcpOptions>();
        assert!(tcp.contains(&"partial_ack_timer") && tcp.contains(&"mss"));
        assert_eq!(names::<Stack>(), ["ns2", "linux"]);
        assert_eq!(
            names::<Scenario>(),
            ["simulation", "topology", "tcp", "flows"]
        );
    }

    /// CustomLink's own keys are listed by hand: each must be one it accepts.
    #[test]
    fn custom_link_keys_are_accepted() {
        let links = schema()
            .into_iter()
            .find(|t| t.path == "topology(kind=custom).links[]")
            .unwrap();
        let base = "between = ['a', 'b']\nrate = 1e6\ndelay = 0.01\n";
        let error = |extra: &str| {
            toml::from_str::<CustomLink>(&format!("{base}{extra}"))
                .err()
                .map(|e| e.to_string())
        };
        assert_eq!(error(""), None);
        assert!(error("no_such_key = 1").unwrap().contains("unknown field"));
        let own = links
            .keys
            .iter()
            .filter(|k| !names::<LinkSpec>().contains(k));
        for key in own.filter(|k| !base.contains(&format!("{k} ="))) {
            let e = error(&format!("{key} = 'wrong type'")).unwrap();
            assert!(!e.contains("unknown field"), "{key}: {e}");
        }
    }

    #[test]
    fn every_table_has_keys() {
        for t in schema() {
            // The queues whose only settings are the link's buffer.
            let empty_ok =
                ["queue(kind=droptail)", "queue(kind=round_robin)"].contains(&t.path.as_str());
            assert!(empty_ok || !t.keys.is_empty(), "{}", t.path);
        }
    }
}
