"""Lesson 8's hints for mistakes a learner made that no hint named before (a Korean learner's run of lesson 8): a
StreamingLLM cache kept with a negative slice, a ring's first position off by one, keys rotated twice, and others; and
the hints of exercises 15 (a sink through FlexAttention's log-sum-exp) and 16 (Gemma 2's softcap as a score_mod).
Kept apart from lesson8.py, which is near the module-length limit."""

MESSAGES = {
    # ---------------------------------------------------------------- exercise 4: a rolling cache
    "rolling_repeated_slots": {
        "ja": "{name} に {n} 個のトークンを一度に渡したとき（window = {window}）、リングバッファの同じスロットに2回以上書き込んでいます。出力が正しくても、この書き方では、キャッシュに残る値が決まりません。",
        "ko": "{name}에 토큰 {n}개를 한 번에 넘겼을 때(window = {window}) 링 버퍼의 같은 슬롯에 두 번 이상 썼습니다. 출력이 맞더라도 이렇게 쓰면 어느 값이 남을지 보장되지 않습니다.",
    },
    "hint_rolling_repeated_slots": {
        "ja": "新しいトークンを全部、スロット positions % window に書き込んでいませんか。T_new が window より多いと、positions % window に同じスロットが2回以上現れます。同じ添字に2回以上代入したときにどの値が残るかを、PyTorch は決めていません。小さなテンソルを CPU で扱うときは最後の値が残ることが多いのですが、大きなテンソルや GPU では書き込みが並列に進むので、実行のたびに違う値が残ることがあります。書き込むのは最後の min(T_new, window) 個だけです。slots = positions[-min(T_new, window):] % window として、k_ring[:, :, slots] = k[:, :, -min(T_new, window):] のように書き込みます。",
        "ko": "새 토큰을 모두 슬롯 positions % window에 쓰지 않았나요? T_new가 window보다 많으면 positions % window에 같은 슬롯이 두 번 이상 나옵니다. 같은 인덱스에 두 번 이상 대입했을 때 어느 값이 남을지 PyTorch는 보장하지 않습니다. 작은 텐서를 CPU에서 다룰 때는 대개 마지막 값이 남지만, 큰 텐서나 GPU에서는 쓰기가 병렬로 진행되므로 실행할 때마다 다른 값이 남을 수 있습니다. 쓰는 것은 마지막 min(T_new, window)개뿐입니다. slots = positions[-min(T_new, window):] % window로 두고 k_ring[:, :, slots] = k[:, :, -min(T_new, window):]처럼 씁니다.",
    },
    "hint_rolling_seen_off": {
        "ja": "新しいトークンの位置が1つ前にずれています。pos.max() は最後に書き込んだトークンの位置なので、次のトークンの位置は T_seen = int(pos.max()) + 1 から始まります（最初の呼び出しでは pos がすべて −1 なので 0 からです）。",
        "ko": "새 토큰의 위치가 하나 앞으로 밀렸습니다. pos.max()는 마지막으로 쓴 토큰의 위치이므로, 다음 토큰의 위치는 T_seen = int(pos.max()) + 1부터 시작합니다(첫 호출에서는 pos가 모두 −1이므로 0부터입니다).",
    },
    "hint_rolling_write_then_join": {
        "ja": "新しいトークンをリングに書き込んでから、そのリングと新しいキーをつないでいます。これでは新しいキーが2回入り、上書きされた古いキーは見えなくなります。リングと新しいキーをつないで計算してから、最後にリングに書き込みます。",
        "ko": "새 토큰을 링에 쓴 다음 그 링과 새 키를 이어 붙였습니다. 이러면 새 키가 두 번 들어가고, 덮어쓴 이전 키는 보이지 않게 됩니다. 링과 새 키를 이어 붙여 계산한 다음, 마지막에 링에 씁니다.",
    },
    "hint_rolling_pos_dtype": {
        "ja": "pos の dtype が整数ではありません。torch.full((window,), -1.0) のように小数で作ると float32 になり、整数の位置 positions を書き込めません。pos は torch.full((window,), -1, dtype=torch.long, device=q.device) で作ります。",
        "ko": "pos의 dtype이 정수가 아닙니다. torch.full((window,), -1.0)처럼 소수로 만들면 float32가 되어 정수 위치 positions를 쓸 수 없습니다. pos는 torch.full((window,), -1, dtype=torch.long, device=q.device)로 만듭니다.",
    },
    "hint_rolling_no_causal": {
        "ja": "新しいトークンどうしの因果マスクがありません。一度に2つ以上渡すと、前のほうのトークンが、同じ呼び出しで渡した後ろのトークン、つまり未来のキーまで見てしまいます（1つずつ渡すときは結果が正しいので、気づきにくい誤りです）。keep には (key_pos <= p) も & でつなぎます。",
        "ko": "새 토큰끼리의 인과 마스크가 없습니다. 한 번에 토큰을 두 개 이상 넘기면 앞쪽 토큰이 같은 호출의 뒤쪽 토큰, 즉 미래의 키까지 봅니다(하나씩 넘길 때는 맞아 보입니다). keep에는 (key_pos <= p)도 &로 잇습니다.",
    },
    "hint_weights_times_keys": {
        "ja": "重みにキーを掛けています（softmax(...) @ keys）。出力は重みとバリューの積です：torch.softmax(scores, dim=-1) @ values。",
        "ko": "가중치에 키를 곱했습니다(softmax(...) @ keys). 출력은 가중치와 밸류의 곱입니다: torch.softmax(scores, dim=-1) @ values.",
    },
    # ---------------------------------------------------------------- exercises 7 and 8: MLA
    "hint_mla_heads_view": {
        "ja": "ヘッドを view(B, H, T, …) だけで分けていませんか。q_proj(x) や kv_b_proj(c) の出力 (B, T, …) の最後の軸には、トークンごとにヘッド 0 の成分、ヘッド 1 の成分、… が並んでいます。まず view(B, T, H, …) で各トークンの成分をヘッドごとに分け、そのあと .transpose(1, 2) で (B, H, T, …) にします。いきなり view(B, H, T, …) とすると、形状は合っていても、別のトークンの成分が1つのヘッドに混ざります。",
        "ko": "헤드를 view(B, H, T, …)만으로 나누지 않았나요? q_proj(x)나 kv_b_proj(c)의 출력 (B, T, …)의 마지막 축에는 토큰마다 헤드 0의 성분, 헤드 1의 성분 등이 차례로 놓여 있습니다. 먼저 view(B, T, H, …)로 각 토큰의 벡터를 헤드별로 나눈 뒤 .transpose(1, 2)로 (B, H, T, …)로 만듭니다. 바로 view(B, H, T, …)로 하면 모양은 맞아도 다른 토큰의 성분이 한 헤드에 섞입니다.",
    },
    # ---------------------------------------------------------------- exercise 13: attention page by page
    "hint_pdec_rescale_acc": {
        "ja": "最大値が m から m' に上がったとき、指数の和 ℓ には e^{{m - m'}} を掛けていますが、acc には掛けていません。acc も、それまでのページで e^{{s − m}} を掛けたバリューの和なので、古い最大値 m を基準にしています。同じ c = torch.exp(m - m_new) で acc = acc * c + … と更新します。",
        "ko": "최댓값이 m에서 m'으로 올랐을 때 지수의 합 ℓ에는 e^{{m - m'}}을 곱했지만 acc에는 곱하지 않았습니다. acc도 앞 페이지들에서 밸류에 e^{{s − m}}을 곱해 더한 값이라 이전 최댓값 m을 기준으로 합니다. 같은 c = torch.exp(m - m_new)로 acc = acc * c + …로 갱신합니다.",
    },
    "hint_pdec_rescale_sum": {
        "ja": "最大値が m から m' に上がったとき、acc には e^{{m - m'}} を掛けていますが、指数の和 ℓ には掛けていません。ℓ もそれまでのページで足した指数の和なので、古い最大値 m を基準にしています。同じ c = torch.exp(m - m_new) で ℓ = ℓ * c + … と更新します。",
        "ko": "최댓값이 m에서 m'으로 올랐을 때 acc에는 e^{{m - m'}}을 곱했지만 지수의 합 ℓ에는 곱하지 않았습니다. ℓ도 앞 페이지들에서 더한 지수의 합이라 이전 최댓값 m을 기준으로 합니다. 같은 c = torch.exp(m - m_new)로 ℓ = ℓ * c + …로 갱신합니다.",
    },
    # ---------------------------------------------------------------- exercise 14: rows of different lengths
    "hint_batch_lengths_index": {
        "ja": "k_cache[:, :, lengths] のように、長さのテンソルで系列の軸だけに添字をつけていませんか。これは行ごとに1つの位置を選ぶのではなく、どの行でも lengths のすべての位置を選ぶので、(B, H, B, D) になります（各行の新しいトークンが、ほかの行の長さの位置にも書き込まれます）。行 b に使うのは lengths[b] の位置だけです。行の番号 rows = torch.arange(B) と組にして k_cache[rows, :, lengths] = k_new[:, :, 0] と書き込み、見てよいキーは torch.arange(T_max) <= lengths[:, None] のマスクで決めます。",
        "ko": "k_cache[:, :, lengths]처럼 길이 텐서로 시퀀스 축만 인덱싱하지 않았나요? 이렇게 하면 행마다 위치 하나를 고르는 것이 아니라 모든 행에서 lengths의 모든 위치를 골라 (B, H, B, D)가 됩니다(각 행의 새 토큰이 다른 행의 길이 위치에도 쓰입니다). 행 b에 쓰는 것은 lengths[b] 위치뿐입니다. 행 번호 rows = torch.arange(B)와 짝지어 k_cache[rows, :, lengths] = k_new[:, :, 0]로 쓰고, 봐도 되는 키는 torch.arange(T_max) <= lengths[:, None] 마스크로 정합니다.",
    },
    # ---------------------------------------------------------------- exercises 15 and 16
    "hint_flex_sink_log2_divided": {
        "ja": "lse を ln 2 で割っています（または log2(e) を掛けています）。自然対数の lse を底 2 の対数に直したようですが、aux.lse も s_h も自然対数の尺度でそろっています。torch.sigmoid(aux.lse - s_h) のように、lse はそのまま使います。",
        "ko": "lse를 ln 2로 나눴습니다(또는 log2(e)를 곱했습니다). 자연로그인 lse를 밑이 2인 로그로 바꾼 것 같지만, aux.lse도 s_h도 자연로그 척도로 맞춰져 있습니다. torch.sigmoid(aux.lse - s_h)처럼 lse를 그대로 씁니다.",
    },
    "hint_flex_sink_base": {
        "ja": "lse − s_h に ln 2 を掛けるか、ln 2 で割っています（2 の累乗や log2 で σ を計算すると、こうなります）。lse も s_h も自然対数の尺度なので、σ(lse − s_h) は底 e のまま torch.sigmoid(aux.lse - s_h) で計算します。",
        "ko": "lse − s_h에 ln 2를 곱하거나 ln 2로 나눴습니다(2의 거듭제곱이나 log2로 σ를 계산하면 이렇게 됩니다). lse도 s_h도 자연로그 척도이므로 σ(lse − s_h)는 밑 e 그대로 torch.sigmoid(aux.lse - s_h)로 계산합니다.",
    },
    "hint_softcap_fixed": {
        "ja": "引数の cap ではなく、Gemma 2 の値 50 を決め打ちしていませんか。softcap_score_mod(cap) は、渡された cap で cap * torch.tanh(score / cap) を計算する score_mod を返します（隠しテストは 50 以外の cap も渡します）。",
        "ko": "인자 cap 대신 Gemma 2의 값 50을 코드에 그대로 적지 않았나요? softcap_score_mod(cap)은 넘겨받은 cap으로 cap * torch.tanh(score / cap)을 계산하는 score_mod를 반환합니다(숨겨진 테스트는 50이 아닌 cap도 넘깁니다).",
    },
    # ---------------------------------------------------------------- exercise 5: StreamingLLM
    "hint_stream_tail_slice": {
        "ja": "キャッシュのキー（またはバリュー）を x とします。T_new が window と等しいと、x[:, :, -(window - T_new):] は x[:, :, -0:]、つまり x[:, :, 0:] になり（-0 は 0 です）、何も追い出さずにキャッシュ全体を残してしまいます。残す最後の部分はキャッシュの長さ L = x.size(2) から数えて x[:, :, L - (window - T_new):] と書きます。これなら残す数が 0 のときは空になります。",
        "ko": "캐시의 키(또는 밸류)를 x라고 합시다. T_new가 window와 같으면 x[:, :, -(window - T_new):]는 x[:, :, -0:], 즉 x[:, :, 0:]이 되어(-0은 0입니다) 아무것도 내보내지 않고 캐시 전체를 남깁니다. 남길 마지막 부분은 캐시 길이 L = x.size(2)에서 세어 x[:, :, L - (window - T_new):]로 씁니다. 이렇게 하면 남길 개수가 0일 때 빈 텐서가 됩니다.",
    },
    "hint_stream_cache_turned": {
        "ja": "キャッシュとして、回したあとのキー（k_rot）を返しています。次の呼び出しではそのキーをもう一度回すので、回転が重なっていきます。キャッシュとして返すのは回す前のキー (k, v) で、回すのは呼び出しのたびに計算の中だけです。",
        "ko": "캐시로 돌린 뒤의 키(k_rot)를 반환했습니다. 다음 호출에서 그 키를 한 번 더 돌리므로 회전이 겹쳐 쌓입니다. 캐시로 반환하는 것은 돌리기 전의 키 (k, v)이고, 돌리는 것은 호출할 때마다 계산 안에서만 합니다.",
    },
    "hint_stream_query_from_zero": {
        "ja": "クエリを位置 0, 1, … で回しています。新しいトークンはキャッシュの最後にいるので、キャッシュと新しいトークンをつないだあとのキーの数を L' とすると、クエリの位置は L' - T_new, …, L' - 1 です。",
        "ko": "쿼리를 위치 0, 1, …로 돌렸습니다. 새 토큰은 캐시의 끝에 있으므로 캐시와 새 토큰을 이은 뒤의 키 개수를 L'이라 하면 쿼리의 위치는 L' - T_new, …, L' - 1입니다.",
    },
    "hint_stream_diagonal_minus_one": {
        "ja": "マスクの対角線が1つ左にずれていて、どのトークンも自分自身を見ていません。右下にそろえたマスクは tril(diagonal=k.size(2) - T_new) です（k.size(2) はキャッシュと新しいトークンをつないだあとのキーの数 L'。- 1 は付けません）。",
        "ko": "마스크의 대각선이 하나 왼쪽으로 밀려서 어떤 토큰도 자기 자신을 보지 못합니다. 오른쪽 아래에 맞춘 마스크는 tril(diagonal=k.size(2) - T_new)입니다(k.size(2)는 캐시와 새 토큰을 이은 뒤의 키 개수 L'이며, - 1을 붙이지 않습니다).",
    },
    # ---------------------------------------------------------------- exercises 7 and 8: MLA
    "hint_mla_rope_head_axis": {
        "ja": "k_R にヘッドの軸を付けずに rope に渡しています。k_R は (B, T, d_R) で全ヘッドが共有するので、k_R[:, None] で (B, 1, T, d_R) にしてから rope に渡し、q_R (B, H, T, d_R) と同じように回します。",
        "ko": "k_R에 헤드 축을 붙이지 않고 rope에 넘겼습니다. k_R은 (B, T, d_R)이고 모든 헤드가 함께 쓰므로, k_R[:, None]으로 (B, 1, T, d_R)로 만든 다음 rope에 넘겨 q_R (B, H, T, d_R)과 같은 방식으로 돌립니다.",
    },
    "hint_mla_cache_cat_dim": {
        "ja": "潜在キャッシュを時間の軸以外でつないでいます。c は (B, T, r)、k_R は (B, T, d_R) なので、時間の軸は dim=1 です：torch.cat([cache[0], c], dim=1)、torch.cat([cache[1], k_R], dim=1)。",
        "ko": "잠재 캐시를 시간 축이 아닌 축으로 이어 붙였습니다. c는 (B, T, r), k_R은 (B, T, d_R)이므로 시간 축은 dim=1입니다: torch.cat([cache[0], c], dim=1), torch.cat([cache[1], k_R], dim=1).",
    },
    "hint_mla_kR_head_axis": {
        "ja": "キャッシュした k_R にヘッドの軸が残っています（{shape}）。rope に渡すために付けた軸は、回したあと k_R[:, 0] で外し、(B, T, d_R) としてキャッシュします。",
        "ko": "캐시한 k_R에 헤드 축이 남아 있습니다({shape}). rope에 넘기려고 붙인 축은 돌린 뒤 k_R[:, 0]으로 떼어 내고 (B, T, d_R)로 캐시합니다.",
    },
    "hint_mla_norm_twice": {
        "ja": "キャッシュにある c をもう一度正規化しています。キャッシュの c はすでに kv_a_layernorm を通したものなので、正規化するのは新しいトークンの c だけで、キャッシュとつなぐのはそのあとです。",
        "ko": "캐시에 있는 c를 한 번 더 정규화했습니다. 캐시의 c는 이미 kv_a_layernorm을 거친 것이므로, 정규화는 새 토큰의 c에만 하고 캐시와 이어 붙이는 것은 그다음입니다.",
    },
    # ---------------------------------------------------------------- exercise 12: what a cache costs
    "hint_bytes_window_uncapped": {
        "ja": "スライディングウィンドウの層を、いつも window トークン分で数えています。まだ T < window のうちは T トークンしか入っていないので、その層が持つのは min(T, window) トークンです。",
        "ko": "슬라이딩 윈도 층을 늘 window 토큰만큼으로 셌습니다. 아직 T < window일 때는 토큰이 T개뿐이므로 그 층이 가지는 것은 min(T, window) 토큰입니다.",
    },
    "hint_return_not_int": {
        "ja": "{name} の戻り値が整数ではありません（いまは {got}）。バイト数は数を数える答えなので、/ や float(...) を使わずに整数を返してください。",
        "ko": "{name}의 반환값이 정수가 아닙니다(지금은 {got}). 바이트 수는 개수를 세는 답이므로 /나 float(...)를 쓰지 않고 정수를 반환하세요.",
    },
    # ---------------------------------------------------------------- exercise 15: a sink after flex_attention
    "hint_flex_sink_sign": {
        "ja": "σ(s_h − lse) を掛けています。これはシンクへ行った重みの割合です。トークンに残る割合は σ(lse − s_h) = e^lse / (e^lse + e^s_h) なので、出力には torch.sigmoid(lse - s_h) を掛けます。",
        "ko": "σ(s_h − lse)를 곱했습니다. 이것은 싱크로 간 가중치의 비율입니다. 토큰에 남는 비율은 σ(lse − s_h) = e^lse / (e^lse + e^s_h)이므로, 출력에는 torch.sigmoid(lse - s_h)를 곱합니다.",
    },
    "hint_flex_sink_log2": {
        "ja": "lse に ln 2 を掛けています（底が 2 の対数だと考えて、自然対数に直したようです）。flex_attention が返す aux.lse は、もう自然対数の log-sum-exp です。カーネルの中では底 2 で計算しますが、torch が返す前に ln 2 を掛けて直しています（torch/nn/attention/flex_attention.py の _finalize_outputs）。lse はそのまま使います。",
        "ko": "lse에 ln 2를 곱했습니다(밑이 2인 로그라고 보고 자연로그로 바꾼 것 같습니다). flex_attention이 반환하는 aux.lse는 이미 자연로그로 계산한 log-sum-exp입니다. 커널 안에서는 밑 2로 계산하지만, torch가 반환하기 전에 ln 2를 곱해 바꿔 둡니다(torch/nn/attention/flex_attention.py의 _finalize_outputs). lse는 그대로 씁니다.",
    },
    "hint_flex_sink_scaled": {
        "ja": "シンクのロジットを √D で割っています。lse は √D で割ったあとのスコアから求めた log-sum-exp で、s_h はそれと同じ尺度のロジットです（演習 6 でも s_h は割りませんでした）。s_h は割らずに、torch.sigmoid(lse - s_h) に使います。",
        "ko": "싱크 로짓을 √D로 나눴습니다. lse는 √D로 나눈 뒤의 점수로 구한 log-sum-exp이고, s_h는 그것과 같은 척도의 로짓입니다(연습 문제 6에서도 나누지 않았습니다). s_h는 나누지 말고 torch.sigmoid(lse - s_h)를 그대로 쓰세요.",
    },
    "hint_flex_sink_missing": {
        "ja": "flex_attention の出力をそのまま返しています（シンクのないアテンションです）。return_aux=AuxRequest(lse=True) で lse も受け取り、出力に torch.sigmoid(lse - s_h) を掛けます。",
        "ko": "flex_attention의 출력을 그대로 반환했습니다(싱크가 없는 어텐션입니다). return_aux=AuxRequest(lse=True)로 lse도 받아서, 출력에 torch.sigmoid(lse - s_h)를 곱합니다.",
    },
    "hint_flex_sink_unsqueeze": {
        "ja": "lse の形状は (B, H, T_q)、出力は (B, H, T_q, D) です。そのまま掛けると最後の軸どうし（T_q と D）を合わせようとして、形状のエラーになります。sinks.view(1, -1, 1) で s_h を (1, H, 1) にし、σ(lse − s_h) に .unsqueeze(-1) をつけて (B, H, T_q, 1) にしてから掛けます。",
        "ko": "lse의 모양은 (B, H, T_q)이고 출력은 (B, H, T_q, D)입니다. 그대로 곱하면 마지막 축끼리(T_q와 D) 맞추려고 해서 모양 오류가 납니다. sinks.view(1, -1, 1)로 s_h를 (1, H, 1)로 만들고, σ(lse − s_h)에 .unsqueeze(-1)을 붙여 (B, H, T_q, 1)로 만든 다음 곱합니다.",
    },
    # ---------------------------------------------------------------- exercise 16: Gemma 2's softcap
    "hint_softcap_outside": {
        "ja": "cap を tanh の外で掛けるだけで、中で割っていません（cap * tanh(score)）。これではスコアが ±1 の中でつぶれてから cap 倍されます。Gemma 2 のソフトキャップは cap * tanh(score / cap) です。cap より十分小さいスコアはほぼそのまま残り、大きいスコアだけが ±cap に近づきます。",
        "ko": "cap을 tanh 밖에서 곱하기만 하고 안에서 나누지 않았습니다(cap * tanh(score)). 이러면 점수가 ±1 안에서 뭉개진 다음 cap배가 됩니다. Gemma 2의 소프트캡은 cap * tanh(score / cap)입니다. cap보다 충분히 작은 점수는 거의 그대로 남고, 큰 점수만 ±cap에 가까워집니다.",
    },
    "hint_softcap_inverted": {
        "ja": "tanh(score * cap) / cap を返しています。cap を 1/cap（50 なら 1/50）として使ったことになり、スコアが ±1/cap の中に押し込まれて、重みはほぼ一様になります。cap はそのまま、cap * tanh(score / cap) と書きます。",
        "ko": "tanh(score * cap) / cap을 반환했습니다. cap을 1/cap(50이면 1/50)으로 쓴 셈이 되어 점수가 ±1/cap 안으로 밀려 들어가고, 가중치는 거의 균등해집니다. cap은 그대로 두고 cap * tanh(score / cap)으로 씁니다.",
    },
    "hint_softcap_not_rescaled": {
        "ja": "tanh(score / cap) で終わっていて、cap を掛け戻していません。スコアが ±1 の中に縮み、重みは一様に近づきます。cap * tanh(score / cap) です。",
        "ko": "tanh(score / cap)에서 끝나고 cap을 다시 곱하지 않았습니다. 점수가 ±1 안으로 줄어들어 가중치가 균등에 가까워집니다. cap * tanh(score / cap)입니다.",
    },
    "hint_softcap_clamp": {
        "ja": "スコアを ±cap で切っています（clamp）。Gemma 2 のソフトキャップは tanh でなめらかに曲げるので、絶対値が cap より小さいスコアも少し 0 に寄り、±cap を超えるところでも勾配が 0 になりません。cap * tanh(score / cap) と書きます。",
        "ko": "점수를 ±cap에서 잘랐습니다(clamp). Gemma 2의 소프트캡은 tanh로 매끄럽게 구부리므로, 절댓값이 cap보다 작은 점수도 조금 0 쪽으로 움직이고 ±cap 밖에서도 기울기가 0이 되지 않습니다. cap * tanh(score / cap)으로 씁니다.",
    },
    "hint_softcap_missing": {
        "ja": "スコアが変わっていません（ソフトキャップのないアテンションと同じ出力です）。score_mod は受け取った score から新しいスコア cap * tanh(score / cap) を作って返します。",
        "ko": "점수가 바뀌지 않았습니다(소프트캡이 없는 어텐션과 같은 출력입니다). score_mod는 받은 score로 새 점수 cap * tanh(score / cap)을 만들어 반환합니다.",
    },
}
