//! Software prefetch: asks the CPU to start loading memory that the event loop will read
//! soon. With thousands of flows the per-flow and per-link state and the packets in the
//! scheduler's lanes are spread over hundreds of megabytes, and the hardware prefetcher
//! cannot guess which flow or link the next event touches; the event loop can.

/// Asks the CPU to start loading the cache line holding address `p`. A hint only: it
/// changes nothing the program can observe and never faults, whatever the address.
#[inline(always)]
pub fn prefetch_addr(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` does not dereference its argument in the language's sense:
    // it cannot fault and has no observable effect, for any address.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(p as *const i8)
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Asks the CPU to start loading every cache line of `*r`: a value of a line or more (a
/// 64-byte lane entry, in a buffer aligned to 8 bytes) usually straddles two lines, and
/// prefetching its first byte alone leaves some unloaded.
#[inline(always)]
pub fn prefetch<T>(r: &T) {
    let first = r as *const T as *const u8;
    let size = std::mem::size_of::<T>().max(1);
    let mut offset = 0;
    while offset < size {
        prefetch_addr(first.wrapping_add(offset));
        offset += 64;
    }
    // The last byte: a value that starts late in a line spills into one more.
    prefetch_addr(first.wrapping_add(size - 1));
}

/// Asks the CPU to start loading the first `bytes` bytes of `*r` (at least one line).
#[inline(always)]
pub fn prefetch_head<T>(r: &T, bytes: usize) {
    let first = r as *const T as *const u8;
    let mut offset = 0;
    while offset < bytes.min(std::mem::size_of::<T>()) {
        prefetch_addr(first.wrapping_add(offset));
        offset += 64;
    }
}
