//! Scenario documents of 004's WLAN set-up, shared by tests/wlan.rs and
//! examples/wlan_report.rs (included with `#[path]`, so it is no test crate of its own).

/// A `wlan` scenario of `duration` seconds, goodput measured from `measure_from`, with
/// extra `topology` keys, a `tcp` table (or nothing) and `flows` entries.
pub fn wlan(duration: f64, measure_from: f64, topology: &str, tcp: &str, flows: &str) -> String {
    format!(
        "[simulation]\nduration = {duration}\nmeasure = [{measure_from}, {duration}]\n\
         sample_interval = 0.1\n[topology]\nkind = \"wlan\"\n{topology}\n{tcp}\n{flows}"
    )
}

/// `up` Reno uplinks (`w_i -> h0`, named `up<i>`), then `down` downlinks (`h0 -> w_i`).
pub fn reno_flows(up: u32, down: u32) -> String {
    let mut s = String::new();
    for i in 0..up {
        s += &format!("[[flows]]\nname = \"up{i}\"\nsrc = \"w{i}\"\ndst = \"h0\"\ncc = \"reno\"\n");
    }
    for i in up..up + down {
        s += &format!(
            "[[flows]]\nname = \"down{i}\"\nsrc = \"h0\"\ndst = \"w{i}\"\ncc = \"reno\"\n"
        );
    }
    s
}
