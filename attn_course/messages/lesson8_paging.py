"""Lesson 8's messages for attention read page by page through a block table (exercise 13) and for a batch of
sequences of different lengths in one cache (exercise 14): the checks' and the grader's, and the notebook's texts."""

MESSAGES = {
    # ---------------------------------------------------------------- exercise 13: attention over pages
    "hint_pdec_table": {
        "ja": "ブロックテーブルを通さずにページを読んでいます。系列 i の論理ページ j は、物理ページ block_tables[i, j] にあります（k_pages[j] ではありません）。",
        "ko": "블록 테이블을 거치지 않고 페이지를 읽었습니다. 시퀀스 i의 논리 페이지 j는 물리 페이지 block_tables[i, j]에 있습니다(k_pages[j]가 아닙니다).",
    },
    "hint_pdec_first_row": {
        "ja": "どの系列にも、最初の系列のブロックテーブルの行か長さを使っています。系列 i は自分の行 block_tables[i] と自分の長さ seq_lens[i] で読みます。",
        "ko": "모든 시퀀스에 첫 번째 시퀀스의 블록 테이블 행이나 길이를 썼습니다. 시퀀스 i는 자기 행 block_tables[i]와 자기 길이 seq_lens[i]로 읽습니다.",
    },
    "hint_pdec_tail": {
        "ja": "最後のページの P 個のスロットをすべて読んでいます。最後のページで使っているのは seq_lens[i] - j * P 個のスロットだけで、残りのスロットにはほかの系列や前のリクエストの値が残っています。k_pages[page, :n] のように切り出します。",
        "ko": "마지막 페이지의 슬롯 P개를 모두 읽었습니다. 마지막 페이지에서 쓰는 것은 seq_lens[i] - j * P개 슬롯뿐이고, 나머지 슬롯에는 다른 시퀀스나 이전 요청의 값이 남아 있습니다. k_pages[page, :n]처럼 자릅니다.",
    },
    "hint_pdec_floor": {
        "ja": "ページの枚数を seq_lens[i] // P と切り捨てたので、途中まで埋まった最後のページが抜けています。使うページは ⌈seq_lens[i] / P⌉ 枚で、整数の計算では (L + P - 1) // P（L は seq_lens[i]）です。",
        "ko": "페이지 수를 seq_lens[i] // P로 내림했기 때문에, 일부만 채워진 마지막 페이지가 빠졌습니다. 쓰는 페이지는 ⌈seq_lens[i] / P⌉장이고, 정수 계산으로는 (L + P - 1) // P(L은 seq_lens[i])입니다.",
    },
    "hint_pdec_rescale": {
        "ja": "最大値が m から m' に上がったとき、それまでの指数の和 ℓ と acc を e^{{m - m'}} 倍していません。古いページの値が古い最大値を基準にしたまま残ります：c = torch.exp(m - m_new) として、ℓ = ℓ * c + …、acc = acc * c + … と更新します。",
        "ko": "최댓값이 m에서 m'으로 올랐을 때, 그때까지의 지수의 합 ℓ과 acc에 e^{{m - m'}}을 곱하지 않았습니다. 앞 페이지들의 ℓ과 acc가 이전 최댓값 기준으로 남아 새 페이지의 값과 기준이 어긋납니다: c = torch.exp(m - m_new)로 두고 ℓ = ℓ * c + …, acc = acc * c + …로 갱신합니다.",
    },
    "hint_pdec_max": {
        "ja": "最大値 m を更新していません（m = m_new がありません）。m が −∞ のままなので、どのページでも e^{{m - m'}} が 0 になり、それまでのページの ℓ と acc が消えて、最後のページだけの結果になります。",
        "ko": "최댓값 m을 갱신하지 않았습니다(m = m_new가 없습니다). m이 −∞로 남아 있으면 다음 페이지에서 e^{{m - m'}}이 0이 되어, 앞 페이지들이 사라지고 마지막 페이지만으로 계산한 결과가 됩니다.",
    },
    "hint_pdec_not_divided": {
        "ja": "最後に acc を指数の和 ℓ で割っていません。答えは acc / ℓ です。",
        "ko": "마지막에 acc를 지수의 합 ℓ로 나누지 않았습니다. 답은 acc / ℓ입니다.",
    },
    "hint_pdec_page_softmax": {
        "ja": "ページごとにソフトマックスを計算して足しています。ページごとの重みはそれぞれ和が 1 になるので、重みの合計がページの枚数になります。オンラインソフトマックスで、最大値 m・指数の和 ℓ・acc をページをまたいで持ち越します。",
        "ko": "페이지마다 소프트맥스를 계산해서 더했습니다. 페이지별 가중치는 각각 합이 1이므로 전체 가중치의 합이 페이지 수가 됩니다. 온라인 소프트맥스로 최댓값 m, 지수의 합 ℓ, acc를 다음 페이지로 넘겨 가며 갱신하세요.",
    },
    "hint_pdec_device": {
        "ja": "m・ℓ・acc を、q と別のデバイス（CPU）で作っています。torch.full(..., device=q.device) や q.new_zeros(...) のように、入力と同じデバイスで作ります。",
        "ko": "m, ℓ, acc를 q와 다른 장치(CPU)에서 만들었습니다. torch.full(..., device=q.device)나 q.new_zeros(...)처럼 입력과 같은 장치에서 만듭니다.",
    },
    "hint_pdec_dtype": {
        "ja": "m・ℓ・acc を、q と別のデータ型（既定の float32）で作っています。dtype=q.dtype を渡すか、q.new_zeros(...) で作ります。",
        "ko": "m, ℓ, acc를 q와 다른 자료형(기본값 float32)으로 만들었습니다. dtype=q.dtype을 넘기거나 q.new_zeros(...)로 만듭니다.",
    },
    "hint_pdec_past_table": {
        "ja": "ブロックテーブルの行の端を越えて、ページの番号を読もうとしています。系列 i が使うページは ⌈seq_lens[i] / P⌉ 枚です。seq_lens[i] // P + 1 のように数えると、長さがページの大きさで割り切れるときに1枚多くなります。",
        "ko": "블록 테이블 행의 끝을 넘어 페이지 번호를 읽었습니다(index out of bounds). 시퀀스 i가 쓰는 페이지는 ⌈seq_lens[i] / P⌉장입니다. seq_lens[i] // P + 1처럼 세면 길이가 페이지 크기로 나누어떨어질 때 한 장을 더 세게 됩니다.",
    },
    "hint_pdec_gathered": {
        "ja": "ページを集めて1つのテンソルにコピーしています（k_pages[block_tables[i, :n]]、torch.cat、torch.stack など）。これでは演習 10 の paged_gather と同じコピーになります。ページを1枚ずつ k_pages[page] で読み、オンラインソフトマックスで足し込みます。",
        "ko": "페이지를 모아 텐서 하나로 복사했습니다(k_pages[block_tables[i, :n]], torch.cat, torch.stack 등). 이러면 연습 문제 10의 paged_gather와 같은 복사가 됩니다. 페이지를 한 장씩 k_pages[page]로 읽고, 온라인 소프트맥스로 더해 갑니다.",
    },
    "pdec_gathered": {
        "ja": "paged_decode が、ページから形状 {shape} のテンソルを新しく作りました。一度に読むのは、1つの系列のページ1枚（または各系列のページ1枚ずつ）までです。",
        "ko": "paged_decode가 페이지로부터 모양이 {shape}인 텐서를 새로 만들었습니다. 한 번에 읽어도 되는 것은 한 시퀀스의 페이지 한 장(또는 각 시퀀스의 페이지 한 장씩)까지입니다.",
    },
    "pdec_meta": {
        "ja": "meta デバイスの float16 の入力に対して、paged_decode の出力が {device} の {dtype} になりました（meta の float16 になるはずです）。",
        "ko": "meta 장치의 float16 입력에 대해 paged_decode의 출력이 {device}의 {dtype}이(가) 되었습니다(meta의 float16이어야 합니다).",
    },
    # ---------------------------------------------------------------- exercise 14: one cache, rows of different lengths
    "hint_batch_shared_slot": {
        "ja": "新しいトークンを、すべての行で同じ位置に書いています。行 b には lengths[b] 個のトークンが入っているので、新しいキーは行 b の位置 lengths[b] に書きます：k_cache[rows, :, lengths] = k_new[:, :, 0]（rows = torch.arange(B, device=q.device)）。",
        "ko": "새 토큰을 모든 행에서 같은 위치에 썼습니다. 행 b는 토큰 lengths[b]개를 가지고 있으므로, 새 키는 행 b의 위치 lengths[b]에 씁니다: k_cache[rows, :, lengths] = k_new[:, :, 0](rows = torch.arange(B, device=q.device)).",
    },
    "hint_batch_shared_length": {
        "ja": "どの行も、一番長い行の長さでマスクしています。短い行は、自分の長さより後ろのスロット（前のリクエストの値が残っているスロット）まで見てしまいます。マスクは行ごとに、torch.arange(T_max, device=q.device) <= lengths[:, None] で作ります。",
        "ko": "모든 행을 가장 긴 행의 길이로 마스크했습니다. 짧은 행은 자기 길이보다 뒤의 슬롯(이전 요청의 값이 남아 있는 곳)까지 보게 됩니다. 마스크는 행마다 torch.arange(T_max, device=q.device) <= lengths[:, None]으로 만듭니다.",
    },
    "hint_batch_before_write": {
        "ja": "マスクが新しいトークン自身のキーまで隠しています。書き込んだあとの行 b の長さは lengths[b] + 1 なので、見てよいのは位置 0, …, lengths[b] です（< lengths ではなく <= lengths）。",
        "ko": "마스크가 새 토큰 자신의 키까지 가렸습니다. 쓴 다음 행 b의 길이는 lengths[b] + 1이므로, 봐도 되는 것은 위치 0, …, lengths[b]입니다(< lengths가 아니라 <= lengths).",
    },
    "hint_batch_no_mask": {
        "ja": "マスクをかけていません。バッファは最大の長さ T_max で確保してあるので、各行の長さより後ろのスロットには前のリクエストの値が残っていて、それもソフトマックスに入ります。行ごとに torch.arange(T_max, device=q.device) <= lengths[:, None] でマスクします。",
        "ko": "마스크를 적용하지 않았습니다. 버퍼는 최대 길이 T_max로 확보해 두었으므로 각 행의 길이보다 뒤의 슬롯에는 이전 요청의 값이 남아 있고, 그것도 소프트맥스에 들어갑니다. 행마다 torch.arange(T_max, device=q.device) <= lengths[:, None]으로 마스크합니다.",
    },
    "hint_batch_unwritten": {
        "ja": "キャッシュに新しいトークンを書き込んでいません。k_cache と v_cache はその場で書き換えます（次のステップは、書き込まれたキャッシュを読みます）。",
        "ko": "캐시에 새 토큰을 쓰지 않았습니다. k_cache와 v_cache는 그 자리에서 고쳐 씁니다(다음 스텝에서는 새 토큰이 쓰인 캐시를 읽습니다).",
    },
    "hint_batch_python_lengths": {
        "ja": "lengths の値を Python の数として取り出しています（.item()・int()・.tolist() など）。サーバでは lengths は GPU 上にあるので、取り出すたびに CPU が GPU の計算が終わるのを待つ（同期する）ことになります。テンソルのまま、インデックスとマスクに使います。",
        "ko": "lengths의 값을 Python 수로 꺼냈습니다(.item(), int(), .tolist() 등). 서버에서 lengths는 GPU에 있어서, 꺼낼 때마다 CPU가 GPU의 계산이 끝나기를 기다리게 됩니다. 텐서 그대로 인덱스와 마스크에 씁니다.",
    },
    "hint_batch_device": {
        "ja": "行の番号か位置のテンソルを、入力と別のデバイス（CPU）で作っています。torch.arange(..., device=q.device) のように作ります。",
        "ko": "행 번호나 위치 텐서를 입력과 다른 장치(CPU)에서 만들었습니다. torch.arange(..., device=q.device)처럼 만듭니다.",
    },
    "hint_batch_dtype": {
        "ja": "出力のデータ型が入力と違います。dtype を指定せずに作ったテンソル（既定は float32。たとえば torch.zeros(...) で作った足し算のマスク）と混ぜると、結果が float32 になります。bool のマスクを masked_fill に使うか、テンソルを q.dtype で作ってください。",
        "ko": "출력의 자료형이 입력과 다릅니다. dtype 없이 만든 텐서(기본값 float32, 예: 더하는 마스크를 torch.zeros(...)로 만든 경우)와 섞으면 결과가 float32가 됩니다. bool 마스크를 masked_fill에 쓰거나, 텐서를 q.dtype으로 만드세요.",
    },
    "hint_batch_lengths_axis": {
        "ja": "lengths（形状 (B,)）とキーの位置（形状 (T_max,)）を、そのまま比べています。lengths[:, None] で (B, 1) にしてから比べると (B, T_max) のマスクになり、それを [:, None, None, :] で (B, 1, 1, T_max) にすれば、スコア (B, H, 1, T_max) に合わせられます。",
        "ko": "lengths(모양 (B,))와 키의 위치(모양 (T_max,))를 그대로 비교했습니다. lengths[:, None]으로 (B, 1)로 만든 다음 비교하면 (B, T_max) 마스크가 되고, 그것을 [:, None, None, :]로 (B, 1, 1, T_max)로 만들면 점수 (B, H, 1, T_max)에 맞출 수 있습니다.",
    },
    "batch_differs": {
        "ja": "ステップ {step}（各行の長さ {lengths}）で、decode_batched の出力が正しい値と違います（最大誤差 {err:.3g}）。",
        "ko": "스텝 {step}(각 행의 길이 {lengths})에서 decode_batched의 출력이 올바른 값과 다릅니다(최대 오차 {err:.3g}).",
    },
    "batch_cache_differs": {
        "ja": "ステップ {step}（各行の長さ {lengths}）のあと、キーのキャッシュの中身が正しくありません。",
        "ko": "스텝 {step}(각 행의 길이 {lengths}) 뒤에 키 캐시의 내용이 올바르지 않습니다.",
    },
    "batch_meta": {
        "ja": "meta デバイスの float16 の入力に対して、decode_batched の出力が {device} の {dtype} になりました（meta の float16 になるはずです）。",
        "ko": "meta 장치의 float16 입력에 대해 decode_batched의 출력이 {device}의 {dtype}이(가) 되었습니다(meta의 float16이어야 합니다).",
    },
    # ---------------------------------------------------------------- the notebook's texts
    "c8_running_state": {
        "ja": "最大値 m・指数の和 ℓ・acc：ヘッドごと、入力と同じデバイスとデータ型で",
        "ko": "최댓값 m, 지수의 합 ℓ, acc: 헤드마다, 입력과 같은 장치와 자료형으로",
    },
    "c8_one_page": {
        "ja": "物理ページ1枚の、使っているスロットだけを読む（コピーしない）",
        "ko": "물리 페이지 한 장에서 쓰는 슬롯만 읽음(복사하지 않음)",
    },
    "c8_slot_mapping": {
        "ja": "vLLM の slot_mapping：位置 p のトークンは、平らにしたプールのスロット block_table[p // P] * P + p % P",
        "ko": "vLLM의 slot_mapping: 위치 p인 토큰은 평평하게 편 풀의 슬롯 block_table[p // P] * P + p % P에 들어감",
    },
    "c8_stale_slots": {
        "ja": "各行の長さより後ろのスロットには、前のリクエストの値が残っている",
        "ko": "각 행의 길이보다 뒤의 슬롯에는 이전 요청의 값이 남아 있음",
    },
    "c8_row_slots": {
        "ja": "行 b の新しいトークンは、位置 lengths[b] に",
        "ko": "행 b의 새 토큰은 위치 lengths[b]에 씀",
    },
    "paged_decode_check": {
        "ja": "P = 16、長さ {lengths} の系列：paged_decode と、系列ごとの連続したキャッシュで計算した SDPA の差（最大）: {err:.1e}",
        "ko": "P = 16, 길이 {lengths}인 시퀀스: paged_decode와 시퀀스별 연속 캐시로 계산한 SDPA의 차이(최대): {err:.1e}",
    },
    "batched_check": {
        "ja": "長さ {lengths} の{B}行を{steps}ステップ：decode_batched と、1行ずつ計算した結果の差（最大）: {err:.1e}",
        "ko": "길이 {lengths}인 행 {B}개를 {steps}스텝 디코딩: decode_batched와 한 행씩 계산한 결과의 차이(최대): {err:.1e}",
    },
}
