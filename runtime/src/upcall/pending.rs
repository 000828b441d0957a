//! An upcall on its way: a future of JS's answer, read into the reply its kind has. The request
//! is already with the host when a `Pending` exists, so the answer is one channel away and
//! reading it allocates nothing beyond what JS sent.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll};

use serde_json::Value;
use tokio::sync::oneshot;

use super::{ScriptReply, UpcallFailure};

/// JS's answer to a request, as the host sends it back: the handler's value, if any.
pub type Answer = Result<Option<Value>, UpcallFailure>;

/// What a kind of upcall replies, read from the handler's value.
pub trait Reply: Sized {
    fn read(value: Option<Value>) -> Self;
}

/// A tool handler's value, as it is.
impl Reply for Option<Value> {
    fn read(value: Option<Value>) -> Self {
        value
    }
}

/// Only that the handler ran.
impl Reply for () {
    fn read(_: Option<Value>) -> Self {}
}

/// A test script's reply; `None` when it gave none.
impl Reply for Option<ScriptReply> {
    fn read(value: Option<Value>) -> Self {
        value.map(|value| ScriptReply::read(&value))
    }
}

/// A future of one upcall's reply; `HostGone` when the host drops its request.
pub struct Pending<T> {
    state: State,
    reply: PhantomData<fn() -> T>,
}

enum State {
    Waiting(oneshot::Receiver<Answer>),
    Settled(Option<Answer>),
}

impl<T: Reply> Pending<T> {
    /// Waits for the answer the host sends on `answer`.
    pub fn waiting(answer: oneshot::Receiver<Answer>) -> Pending<T> {
        Pending {
            state: State::Waiting(answer),
            reply: PhantomData,
        }
    }

    /// Already answered (a host that is gone, a request that could not be sent).
    pub fn settled(answer: Answer) -> Pending<T> {
        Pending {
            state: State::Settled(Some(answer)),
            reply: PhantomData,
        }
    }
}

impl<T: Reply> Future for Pending<T> {
    type Output = Result<T, UpcallFailure>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let answer = match &mut self.state {
            State::Waiting(answer) => match Pin::new(answer).poll(cx) {
                Poll::Ready(answer) => answer.unwrap_or(Err(UpcallFailure::HostGone)),
                Poll::Pending => return Poll::Pending,
            },
            State::Settled(answer) => answer.take().unwrap_or(Err(UpcallFailure::HostGone)),
        };
        Poll::Ready(answer.map(T::read))
    }
}
