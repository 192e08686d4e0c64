#include "lib/graph/window_graphs.h"

namespace rp::graph {

void WindowGraph::Build(const window::Dictionary& dict) {
  matching = match::Match(window, dict);
  graph = Graph(window, matching);
  times = SplitCalls(graph, matching);
}

Expected<std::unique_ptr<WindowGraph>> WindowGraphs::Next() {
  if (jobs_ == 1) {
    auto w = Take();
    RP_ASSIGN_OR_RETURN(bool more, reader_.Next(&w->window));
    if (!more) return std::unique_ptr<WindowGraph>();
    w->Build(reader_.dictionary());
    return w;
  }
  if (threads_.empty()) Begin();
  std::unique_lock lock(mu_);
  changed_.wait(lock,
                [&] { return (!done_.empty() && done_.begin()->first == next_out_) || (eof_ && next_out_ == read_); });
  if (!status_.ok() && next_out_ == read_) return status_;
  if (done_.empty() || done_.begin()->first != next_out_) return std::unique_ptr<WindowGraph>();
  auto w = std::move(done_.begin()->second);
  done_.erase(done_.begin());
  ++next_out_;
  changed_.notify_all();
  return w;
}

void WindowGraphs::Recycle(std::unique_ptr<WindowGraph> w) {
  if (!w) return;
  std::lock_guard lock(mu_);
  if (spare_.size() < Limit()) spare_.push_back(std::move(w));
}

std::unique_ptr<WindowGraph> WindowGraphs::Take() {
  std::lock_guard lock(mu_);
  if (spare_.empty()) return std::make_unique<WindowGraph>();
  auto w = std::move(spare_.back());
  spare_.pop_back();
  return w;
}

void WindowGraphs::Begin() {
  threads_.emplace_back([this] { ReadAll(); });
  for (int i = 0; i < jobs_; ++i) threads_.emplace_back([this] { BuildAll(); });
}

void WindowGraphs::Stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  changed_.notify_all();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

void WindowGraphs::ReadAll() {
  for (;;) {
    auto w = Take();
    auto more = reader_.Next(&w->window);
    std::unique_lock lock(mu_);
    if (!more.ok() || !*more) {
      if (!more.ok()) status_ = more.status();
      eof_ = true;
      changed_.notify_all();
      return;
    }
    changed_.wait(lock, [&] { return stop_ || read_ - next_out_ < Limit(); });
    if (stop_) return;
    todo_.emplace_back(read_++, std::move(w));
    changed_.notify_all();
  }
}

void WindowGraphs::BuildAll() {
  for (;;) {
    std::unique_lock lock(mu_);
    changed_.wait(lock, [&] { return stop_ || !todo_.empty() || eof_; });
    if (stop_ || (todo_.empty() && eof_)) return;
    auto [index, w] = std::move(todo_.front());
    todo_.pop_front();
    lock.unlock();
    w->Build(reader_.dictionary());
    lock.lock();
    done_.emplace(index, std::move(w));
    changed_.notify_all();
  }
}

}  // namespace rp::graph
