//! Links `awf` as a position-dependent executable: a PIE of this size carries tens of thousands
//! of relocations that the dynamic loader applies at every start, writing (and so copying) half
//! a megabyte of pages before `main`; at a fixed address there are none. `wfa` is left as it is
//! (small, few relocations).

fn main() {
    println!("cargo:rustc-link-arg-bin=awf=-no-pie");
}
