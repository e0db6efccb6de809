//! [`Stop`]: the shutdown signal as a connection waits for it, between
//! every request and the next.
//!
//! A connection polls its stop future each time it waits for its client,
//! once a request or more. Through the `watch` channel
//! ([`Shutdown::triggered`]) every such poll takes the channel's lock for
//! reading and its `Notify`'s waiter lock, both shared by every connection
//! on every worker: cache lines that bounce between the workers' CPUs on
//! each request. A [`Stop`] reads one flag that only the shutdown writes,
//! and keeps its waker in a slot of its own; the shared list of slots is
//! locked twice in a connection's life (when it first waits, and when it
//! ends) and once by the shutdown, which wakes every slot.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

use super::Shutdown;

/// One waiting connection's waker.
type Slot = Arc<Mutex<Option<Waker>>>;

/// The slots of the [`Stop`]s that have waited, by key; a key freed when
/// its `Stop` drops is used again.
#[derive(Default)]
pub(super) struct Parked {
    slots: Vec<Option<Slot>>,
    free: Vec<usize>,
}

/// Resolves once the shutdown started; see the module's notes.
pub struct Stop {
    shutdown: Arc<Shutdown>,
    /// This future's key and slot, from its first wait on.
    parked: Option<(usize, Slot)>,
}

impl Stop {
    pub(super) fn new(shutdown: Arc<Shutdown>) -> Stop {
        Stop {
            shutdown,
            parked: None,
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A poisoned lock only means a holder panicked; a waker list is sound.
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl Future for Stop {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.shutdown.stopped.load(Ordering::Acquire) {
            return Poll::Ready(());
        }
        match &self.parked {
            Some((_, slot)) => {
                let mut waker = lock(slot);
                if !waker.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                    *waker = Some(cx.waker().clone());
                }
            }
            None => {
                let slot: Slot = Arc::new(Mutex::new(Some(cx.waker().clone())));
                let key = {
                    let mut parked = lock(&self.shutdown.parked);
                    match parked.free.pop() {
                        Some(key) => {
                            parked.slots[key] = Some(Arc::clone(&slot));
                            key
                        }
                        None => {
                            parked.slots.push(Some(Arc::clone(&slot)));
                            parked.slots.len() - 1
                        }
                    }
                };
                self.parked = Some((key, slot));
            }
        }
        // Looked at again with the waker in place: a shutdown that began
        // since the first look either finds the waker or is seen here.
        if self.shutdown.stopped.load(Ordering::Acquire) {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

impl Drop for Stop {
    fn drop(&mut self) {
        if let Some((key, _)) = self.parked.take() {
            let mut parked = lock(&self.shutdown.parked);
            parked.slots[key] = None;
            parked.free.push(key);
        }
    }
}

/// Wakes every waiting [`Stop`] (the flag is set already).
pub(super) fn wake_all(shutdown: &Shutdown) {
    let slots: Vec<Slot> = lock(&shutdown.parked)
        .slots
        .iter()
        .flatten()
        .cloned()
        .collect();
    for slot in slots {
        if let Some(waker) = lock(&slot).take() {
            waker.wake();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;
    use std::task::Wake;

    use super::*;

    /// A waker that counts its wakes.
    struct Count(AtomicUsize);

    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn poll(stop: &mut Stop, waker: &Waker) -> Poll<()> {
        Pin::new(stop).poll(&mut Context::from_waker(waker))
    }

    #[test]
    fn a_waiting_stop_is_woken_by_the_shutdown_and_then_ready() {
        let shutdown = Shutdown::new();
        let count = Arc::new(Count(AtomicUsize::new(0)));
        let waker = Waker::from(Arc::clone(&count));
        let mut stop = shutdown.stop();
        assert!(poll(&mut stop, &waker).is_pending());
        // Polled again (as every request's wait does): still one slot.
        assert!(poll(&mut stop, &waker).is_pending());
        assert_eq!(lock(&shutdown.parked).slots.len(), 1);
        shutdown.trigger();
        assert_eq!(count.0.load(Ordering::SeqCst), 1);
        assert!(poll(&mut stop, &waker).is_ready());
        assert!(shutdown.is_triggered());
        // A stop made after the shutdown began is ready at once.
        assert!(poll(&mut shutdown.stop(), &waker).is_ready());
    }

    #[test]
    fn a_dropped_stop_frees_its_slot_for_the_next() {
        let shutdown = Shutdown::new();
        let count = Arc::new(Count(AtomicUsize::new(0)));
        let waker = Waker::from(Arc::clone(&count));
        let mut first = shutdown.stop();
        assert!(poll(&mut first, &waker).is_pending());
        drop(first);
        let mut second = shutdown.stop();
        assert!(poll(&mut second, &waker).is_pending());
        let parked = lock(&shutdown.parked);
        assert_eq!(parked.slots.len(), 1);
        assert!(parked.free.is_empty());
        drop(parked);
        // The dropped one's waker is not woken; the live one's is.
        shutdown.trigger();
        assert_eq!(count.0.load(Ordering::SeqCst), 1);
    }
}
